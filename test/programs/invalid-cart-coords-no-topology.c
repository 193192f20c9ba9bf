/* mpiscope-test
 * ranks: 2
 * expect: invalid-argument lines 16
 */
/* MPI_Cart_coords on MPI_COMM_WORLD, which has no Cartesian topology. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int coords[2], rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        MPI_Cart_coords(MPI_COMM_WORLD, 0, 2, coords);
    MPI_Finalize();
    return 0;
}
