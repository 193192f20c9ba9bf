/* mpiscope-test
 * ranks: 2
 * expect: invalid-argument lines 16
 */
/* MPI_Comm_split with a color of -5: colors are non-negative or MPI_UNDEFINED. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank;
    MPI_Comm half;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_split(MPI_COMM_WORLD, rank == 0 ? -5 : 0, rank, &half);
    if (half != MPI_COMM_NULL)
        MPI_Comm_free(&half);
    MPI_Finalize();
    return 0;
}
