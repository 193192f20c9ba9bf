/* mpiscope-test
 * ranks: 2
 * expect: deadlock lines 23,28
 */
/* Rank 0 opens an access epoch on rank 1's window and puts into it, but rank 1 never exposes its window with
 * MPI_Win_post: rank 0 waits for that post (in MPI_Win_start with Open MPI 4.1 and MPICH 4.0; other libraries wait in MPI_Win_complete) while rank 1 waits in MPI_Win_free (collective)
 * for rank 0. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, *mem, peer, one = 1;
    MPI_Group world_group, peer_group;
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_allocate(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
    MPI_Comm_group(MPI_COMM_WORLD, &world_group);
    peer = 1 - rank;
    MPI_Group_incl(world_group, 1, &peer, &peer_group);
    if (rank == 0) {
        MPI_Win_start(peer_group, 0, win);
        MPI_Put(&one, 1, MPI_INT, 1, 0, 1, MPI_INT, win);
        MPI_Win_complete(win);
    }
    /* Meant on rank 1: MPI_Win_post(peer_group, 0, win); MPI_Win_wait(win); */
    MPI_Win_free(&win);
    MPI_Group_free(&peer_group);
    MPI_Group_free(&world_group);
    MPI_Finalize();
    return 0;
}
