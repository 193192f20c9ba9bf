/* mpiscope-test
 * ranks: 3
 * expect: invalid-argument lines 22,24
 */
/* The root and the other ranks call the same MPI_Reduce from two lines, each reducing two ints from a single int:
 * MPI reads an int past the variable on every rank. The root's receive buffer is large enough. One finding for the
 * collective, with each rank at its own line. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank;
    int mine = 1;
    int sum[2] = {0, 0};

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    /* A barrier first, so that the ranks' streams come apart before the reduction. */
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        MPI_Reduce(&mine, sum, 2, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    else
        MPI_Reduce(&mine, sum, 2, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("sum %d\n", sum[0]);
    MPI_Finalize();
    return 0;
}
