/* mpiscope-test
 * ranks: 2
 * expect: call-order error lines 23
 * expect: deadlock lines 28
 * mpi: mpich
 */
/* call-order-rma-lock-open-at-free.c on MPICH 4.0, where the bug hangs: rank 0 locks rank 1, puts and flushes, but
 * never unlocks before the window is freed, and MPICH's MPI_Win_free waits for the lock to be released. The hang
 * is inside the library (both ranks entered MPI_Win_free), found after the no-progress timeout, and the
 * call-order finding at the lock comes with it: it is why the job hangs. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, buf[4] = {0, 0, 0, 0}, v = 5;
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_create(buf, sizeof buf, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    if (rank == 0) {
        MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
        MPI_Put(&v, 1, MPI_INT, 1, 0, 1, MPI_INT, win);
        MPI_Win_flush(1, win);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
