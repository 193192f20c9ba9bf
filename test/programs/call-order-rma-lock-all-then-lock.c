/* mpiscope-test
 * ranks: 3
 * expect: call-order error lines 22
 */
/* Every rank opens a lock_all epoch on the window and then locks one target exclusively inside it, to
 * update a counter alone: the lock would overlap the lock_all epoch, which MPI forbids (MPI_ERR_RMA_SYNC or
 * a hang). Close the lock_all epoch first, or use an atomic MPI_Accumulate inside it. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, size, buf[4] = {0, 0, 0, 0}, one = 1, got = -1;
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Win_create(buf, sizeof buf, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    MPI_Win_lock_all(0, win);
    MPI_Get(&got, 1, MPI_INT, (rank + 1) % size, 1, 1, MPI_INT, win);
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
    MPI_Accumulate(&one, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_SUM, win);
    MPI_Win_unlock(0, win);
    MPI_Win_unlock_all(win);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
