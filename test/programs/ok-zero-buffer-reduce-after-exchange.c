/* mpiscope-test
 * ranks: 2
 * expect: none
 */
/* The correct twin of potential-deadlock-reduce-before-recv.c: both ranks do the point-to-point exchange
 * first and the reduction after it, so neither waits for the other in a different call. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, v = 1, sum = 0, token = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    v = rank + 1;
    if (rank == 0)
        MPI_Send(&token, 1, MPI_INT, 1, 5, MPI_COMM_WORLD);
    else
        MPI_Recv(&token, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Reduce(&v, &sum, 1, MPI_INT, MPI_SUM, 1, MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
