/* mpiscope-test
 * ranks: 2
 * expect: none
 */
/* MPI_Comm_split with MPI_UNDEFINED on one rank (it gets MPI_COMM_NULL) is legal. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank;
    MPI_Comm half;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_split(MPI_COMM_WORLD, rank == 0 ? MPI_UNDEFINED : 0, rank, &half);
    if (half != MPI_COMM_NULL)
        MPI_Comm_free(&half);
    MPI_Finalize();
    return 0;
}
