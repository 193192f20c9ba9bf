/* mpiscope-test
 * ranks: 2
 * expect: invalid-argument lines 16
 */
/* A rank range (first, last, stride) with a stride of 0. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int ranges[1][3] = {{0, 1, 0}};
    MPI_Group world, some;
    MPI_Init(&argc, &argv);
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_range_incl(world, 1, ranges, &some);
    MPI_Group_free(&some);
    MPI_Group_free(&world);
    MPI_Finalize();
    return 0;
}
