/* mpiscope-test
 * ranks: 2
 * expect: request-misuse lines 24
 * expect: request-misuse lines 24
 * mpi: mpich
 */
/* An MPI-4 persistent collective (MPICH 4 here) is started and its request freed with MPI_Request_free before it
 * completed. MPI allows freeing a persistent collective's request only while it is inactive (MPI-4.0 §6.13); the
 * program then waits for nothing and reads a sum MPI may not have written yet. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, v, sum = 0;
    MPI_Request req;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    v = rank + 1;
    MPI_Allreduce_init(&v, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &req);
    MPI_Start(&req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Start(&req);
    MPI_Request_free(&req); /* still active */
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("sum %d\n", sum);
    MPI_Finalize();
    return 0;
}
