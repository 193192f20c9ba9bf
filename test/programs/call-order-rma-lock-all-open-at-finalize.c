/* mpiscope-test
 * ranks: 2
 * expect: call-order error lines 20
 * expect: resource-leak lines 18
 */
/* Every rank opens a lock_all epoch, gets its neighbour's value and flushes, but neither unlocks nor frees the
 * window before MPI_Finalize: the epoch is never closed (and the window leaks). */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, buf[2] = {0, 0}, got = -1;
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    buf[0] = rank;
    MPI_Win_create(buf, sizeof buf, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock_all(0, win);
    MPI_Get(&got, 1, MPI_INT, 1 - rank, 0, 1, MPI_INT, win);
    MPI_Win_flush_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
