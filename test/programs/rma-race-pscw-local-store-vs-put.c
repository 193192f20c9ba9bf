/* mpiscope-test
 * ranks: 2
 * mode: memcheck
 * expect: rma-race lines 29,34
 */
/* Rank 0 exposes its window to rank 1 (MPI_Win_post … MPI_Win_wait) and stores into element 5 of it while the
 * epoch is open; rank 1 puts into the same element in its matching access epoch: which value survives is
 * undefined. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, *base, one = 1, peer;
    MPI_Group world_group, peer_group;
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_allocate(8 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    for (int i = 0; i < 8; i++)
        base[i] = 0;
    MPI_Comm_group(MPI_COMM_WORLD, &world_group);
    peer = 1 - rank;
    MPI_Group_incl(world_group, 1, &peer, &peer_group);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        MPI_Win_post(peer_group, 0, win);
        base[5] = 2;
        MPI_Win_wait(win);
        printf("%d\n", base[5]);
    } else {
        MPI_Win_start(peer_group, 0, win);
        MPI_Put(&one, 1, MPI_INT, 0, 5, 1, MPI_INT, win);
        MPI_Win_complete(win);
    }
    MPI_Group_free(&peer_group);
    MPI_Group_free(&world_group);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
