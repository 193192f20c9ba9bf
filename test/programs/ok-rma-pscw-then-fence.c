/* mpiscope-test
 * ranks: 2
 * expect: none
 */
/* The correct twin of call-order-rma-fence-in-exposure.c: rank 0 ends its exposure epoch with MPI_Win_wait
 * before both ranks meet in the fence, and the fence epoch that follows (a second put to rank 0: MPICH 4.0.2
 * misplaces puts to other ranks, README.md) is closed by the last fence. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, *mem, v = 7, peer;
    MPI_Group world_group, peer_group;
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_allocate(2 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
    mem[0] = mem[1] = 0;
    MPI_Comm_group(MPI_COMM_WORLD, &world_group);
    peer = 1 - rank;
    MPI_Group_incl(world_group, 1, &peer, &peer_group);

    if (rank == 1) {
        MPI_Win_start(peer_group, 0, win);
        MPI_Put(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, win);
        MPI_Win_complete(win);
    } else {
        MPI_Win_post(peer_group, 0, win);
        MPI_Win_wait(win);
    }
    MPI_Win_fence(0, win);
    if (rank == 1)
        MPI_Put(&v, 1, MPI_INT, 0, 1, 1, MPI_INT, win);
    MPI_Win_fence(0, win);
    if (rank == 0 && (mem[0] != 7 || mem[1] != 7)) printf("rank 0 got %d %d\n", mem[0], mem[1]);

    MPI_Group_free(&peer_group);
    MPI_Group_free(&world_group);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
