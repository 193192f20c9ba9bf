/* mpiscope-test
 * ranks: 2
 * expect: call-order error lines 30
 */
/* Rank 0 starts an access epoch towards rank 1 and starts another before completing the first: one rank has
 * at most one start epoch open on a window (MPI_ERR_RMA_SYNC or a hang). Rank 1 exposes its memory twice. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, buf[4] = {0, 0, 0, 0}, v = 3, peer;
    MPI_Win win;
    MPI_Group world, other;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    peer = 1 - rank;
    MPI_Group_incl(world, 1, &peer, &other);
    MPI_Win_create(buf, sizeof buf, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    if (rank == 1) {
        MPI_Win_post(other, 0, win);
        MPI_Win_wait(win);
    } else {
        MPI_Win_start(other, 0, win);
        MPI_Put(&v, 1, MPI_INT, 1, 0, 1, MPI_INT, win);
        /* Meant: MPI_Win_complete(win) here. */
        v = 4;
        MPI_Win_start(other, 0, win);
        MPI_Win_complete(win);
    }
    MPI_Win_free(&win);
    MPI_Group_free(&other);
    MPI_Group_free(&world);
    MPI_Finalize();
    return 0;
}
