/* mpiscope-test
 * ranks: 2
 * expect: invalid-argument lines 16
 */
/* MPI_Group_excl names rank 5 of a group of 2. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int ranks[1] = {5};
    MPI_Group world, rest;
    MPI_Init(&argc, &argv);
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_excl(world, 1, ranks, &rest);
    MPI_Group_free(&rest);
    MPI_Group_free(&world);
    MPI_Finalize();
    return 0;
}
