/* mpiscope-test
 * ranks: 2
 * expect: deadlock lines 27,31
 */
/* Generalized active target: rank 1 opens an access epoch on rank 0's window and puts into it, but waits
 * in a barrier before calling MPI_Win_complete, while rank 0 waits in MPI_Win_wait for that complete. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, *mem, peer, one = 1;
    MPI_Group world_group, peer_group;
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
    *mem = 0;
    MPI_Comm_group(MPI_COMM_WORLD, &world_group);
    peer = 1 - rank;
    MPI_Group_incl(world_group, 1, &peer, &peer_group);

    if (rank == 0) {
        MPI_Win_post(peer_group, 0, win);
        /* Rank 0 waits for rank 1's MPI_Win_complete,
         * which never comes. */
        MPI_Win_wait(win);
    } else {
        MPI_Win_start(peer_group, 0, win);
        MPI_Put(&one, 1, MPI_INT, 0, 0, 1, MPI_INT, win);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Win_complete(win);
    }

    MPI_Group_free(&peer_group);
    MPI_Group_free(&world_group);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
