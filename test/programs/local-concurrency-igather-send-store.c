/* mpiscope-test
 * ranks: 3
 * mode: memcheck
 * expect: local-concurrency lines 20,22
 */
/* Rank 2 changes its contribution to a nonblocking gather before the gather completed. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size, mine[2], all[6];
    MPI_Request req;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    mine[0] = rank;
    mine[1] = rank * rank;
    MPI_Igather(mine, 2, MPI_INT, all, 2, MPI_INT, 0, MPI_COMM_WORLD, &req);
    if (rank == 2)
        mine[1] = -1;
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    if (rank == 0)
        printf("%d\n", all[5]);
    MPI_Finalize();
    return 0;
}
