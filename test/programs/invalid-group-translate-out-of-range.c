/* mpiscope-test
 * ranks: 2
 * expect: invalid-argument lines 16
 */
/* MPI_Group_translate_ranks asked about rank 3 of a group of 2. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int from[2] = {0, 3}, to[2];
    MPI_Group world;
    MPI_Init(&argc, &argv);
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_translate_ranks(world, 2, from, world, to);
    MPI_Group_free(&world);
    MPI_Finalize();
    return 0;
}
