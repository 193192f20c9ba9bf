/* mpiscope-test
 * ranks: 2
 * expect: call-order error lines 24
 */
/* Rank 0 locks rank 1's window memory and locks it again before unlocking: one rank may hold one access
 * epoch per target of a window (MPI_ERR_RMA_SYNC, or a hang, depending on the library). The window's error
 * handler returns errors so that the job goes on either way. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, buf[4] = {0, 0, 0, 0}, v = 1;
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_create(buf, sizeof buf, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    if (rank == 0) {
        MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
        MPI_Put(&v, 1, MPI_INT, 1, 0, 1, MPI_INT, win);
        /* Meant: MPI_Win_unlock(1, win) here. */
        v = 2;
        MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
        MPI_Put(&v, 1, MPI_INT, 1, 1, 1, MPI_INT, win);
        MPI_Win_unlock(1, win);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
