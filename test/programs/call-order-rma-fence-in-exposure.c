/* mpiscope-test
 * ranks: 2
 * expect: call-order error lines 37
 * expect: deadlock lines 42
 */
/* Rank 0 exposes its window to rank 1 with MPI_Win_post, rank 1 puts into it between start and complete, and
 * both then meet in an MPI_Win_fence: rank 0 enters it before its MPI_Win_wait, while its exposure epoch is still
 * open. A fence opens (and closes) exposure epochs too, so the two overlap, which MPI forbids (MPI-3.1 §11.5).
 * Wait for the post's epoch to end (MPI_Win_wait) before the fence. The errors return so that the job goes on:
 * Open MPI 4.1 and MPICH 4.0 fail rank 0's fence (MPI_ERR_RMA_SYNC) and rank 1, whose fence returned, then hangs
 * in MPI_Win_free (a hang inside the library, found after the no-progress timeout; the call-order finding says
 * why). */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, *mem, v = 7, peer;
    MPI_Group world_group, peer_group;
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_allocate(2 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
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
    }
    MPI_Win_fence(MPI_MODE_NOPRECEDE | MPI_MODE_NOSUCCEED, win);
    if (rank == 0) MPI_Win_wait(win);

    MPI_Group_free(&peer_group);
    MPI_Group_free(&world_group);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
