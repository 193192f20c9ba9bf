/* mpiscope-test
 * ranks: 2
 * expect: invalid-argument lines 16
 */
/* MPI_Group_incl with rank 0 listed twice: the ranks must be distinct. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int ranks[2] = {0, 0};
    MPI_Group world, two;
    MPI_Init(&argc, &argv);
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_incl(world, 2, ranks, &two);
    MPI_Group_free(&two);
    MPI_Group_free(&world);
    MPI_Finalize();
    return 0;
}
