/* mpiscope-test
 * ranks: 2
 * expect: call-order error lines 30
 */
/* Rank 1 completes its access epoch twice: the second MPI_Win_complete has no MPI_Win_start before it
 * (MPI_ERR_RMA_SYNC). */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, *mem, v = 3, peer;
    MPI_Win win;
    MPI_Group world, other;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    peer = 1 - rank;
    MPI_Group_incl(world, 1, &peer, &other);
    MPI_Win_allocate(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    if (rank == 0) {
        MPI_Win_post(other, 0, win);
        MPI_Win_wait(win);
    } else {
        MPI_Win_start(other, 0, win);
        MPI_Put(&v, 1, MPI_INT, 0, 1, 1, MPI_INT, win);
        MPI_Win_complete(win);
        /* A second completion, as if the epoch were still open. */
        MPI_Win_complete(win);
    }
    MPI_Win_free(&win);
    MPI_Group_free(&other);
    MPI_Group_free(&world);
    MPI_Finalize();
    return 0;
}
