/* mpiscope-test
 * ranks: 3
 * mode: memcheck
 * expect: local-concurrency lines 21,22
 */
/* Every rank uses the result of a nonblocking reduction before waiting for it: one defect, one finding, a
 * location per rank. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank;
    double local[2], global[2] = {0, 0};
    MPI_Request req;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    local[0] = rank;
    local[1] = 2.0 * rank;
    MPI_Iallreduce(local, global, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &req);
    double norm = global[0] + global[1];
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    printf("%g %g\n", norm, global[0]);
    MPI_Finalize();
    return 0;
}
