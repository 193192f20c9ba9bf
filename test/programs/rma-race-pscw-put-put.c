/* mpiscope-test
 * ranks: 3
 * expect: rma-race lines 32,34
 */
/* Generalized active target: rank 0 exposes its window to ranks 1 and 2 at once (one MPI_Win_post), and
 * both put into element 0 in that one exposure epoch: which value stays is decided by timing. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, *mem, origins[2] = {1, 2}, target = 0;
    MPI_Group world_group, group;
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_allocate(2 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
    mem[0] = mem[1] = 0;
    MPI_Comm_group(MPI_COMM_WORLD, &world_group);
    if (rank == 0) MPI_Group_incl(world_group, 2, origins, &group);
    else MPI_Group_incl(world_group, 1, &target, &group);
    MPI_Barrier(MPI_COMM_WORLD);

    if (rank == 0) {
        MPI_Win_post(group, 0, win);
        MPI_Win_wait(win);
        printf("element 0 is %d\n", mem[0]);
    } else {
        MPI_Win_start(group, 0, win);
        if (rank == 1) {
            MPI_Put(&rank, 1, MPI_INT, 0, 0, 1, MPI_INT, win);
        } else {
            MPI_Put(&rank, 1, MPI_INT, 0, 0, 1, MPI_INT, win);
        }
        MPI_Win_complete(win);
    }

    MPI_Group_free(&group);
    MPI_Group_free(&world_group);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
