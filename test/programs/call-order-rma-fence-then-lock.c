/* mpiscope-test
 * ranks: 2
 * expect: call-order error lines 23
 */
/* The ranks exchange with fences and, between two fences, rank 0 also locks rank 1 for one more put: the first
 * fence opened an access epoch (another fence and one-sided calls follow it), and the lock epoch overlaps it,
 * which MPI forbids. End the fence epoch with MPI_Win_fence(MPI_MODE_NOSUCCEED, win) before locking. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, buf[4] = {0, 0, 0, 0}, v;
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_create(buf, sizeof buf, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    v = rank + 1;
    MPI_Win_fence(0, win);
    MPI_Put(&v, 1, MPI_INT, 1 - rank, rank, 1, MPI_INT, win);
    if (rank == 0) {
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
        MPI_Put(&v, 1, MPI_INT, 1, 2, 1, MPI_INT, win);
        MPI_Win_unlock(1, win);
    }
    MPI_Win_fence(0, win);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
