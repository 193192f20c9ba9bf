/* mpiscope-test
 * ranks: 4
 * expect: none
 */
/* Groups from ranges (a negative stride included), exclusion, union, translation with MPI_PROC_NULL, compare. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int ranges[2][3] = {{0, 2, 2}, {3, 1, -2}}, drop[1] = {0}, from[2] = {MPI_PROC_NULL, 1}, to[2], result;
    int size;
    MPI_Group world, evens, rest, both;
    MPI_Init(&argc, &argv);
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_range_incl(world, 2, ranges, &evens);
    MPI_Group_excl(world, 1, drop, &rest);
    MPI_Group_union(evens, rest, &both);
    MPI_Group_size(both, &size);
    MPI_Group_translate_ranks(evens, 2, from, world, to);
    MPI_Group_compare(both, world, &result);
    MPI_Group_free(&both);
    MPI_Group_free(&rest);
    MPI_Group_free(&evens);
    MPI_Group_free(&world);
    MPI_Finalize();
    return 0;
}
