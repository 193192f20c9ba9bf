/* mpiscope-test
 * ranks: 4
 * expect: none
 */
/* A communicator built from a group of the first three ranks with MPI_Comm_create; every group
 * and communicator is freed (rank 3 gets MPI_COMM_NULL and has nothing to free but the groups). */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, sum = 0, members[3] = {0, 1, 2};
    MPI_Group world_group, trio_group;
    MPI_Comm trio;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_group(MPI_COMM_WORLD, &world_group);
    MPI_Group_incl(world_group, 3, members, &trio_group);
    MPI_Comm_create(MPI_COMM_WORLD, trio_group, &trio);
    if (trio != MPI_COMM_NULL) {
        MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, trio);
        MPI_Comm_free(&trio);
    }
    MPI_Group_free(&trio_group);
    MPI_Group_free(&world_group);
    MPI_Finalize();
    return 0;
}
