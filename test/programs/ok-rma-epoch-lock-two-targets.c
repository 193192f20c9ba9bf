/* mpiscope-test
 * ranks: 3
 * expect: none
 */
/* Rank 0 holds locks of two different targets at once: legal, an access epoch per target. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, buf[4] = {0, 0, 0, 0}, v = 7;
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_create(buf, sizeof buf, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    if (rank == 0) {
        MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
        MPI_Win_lock(MPI_LOCK_SHARED, 2, 0, win);
        MPI_Put(&v, 1, MPI_INT, 1, 0, 1, MPI_INT, win);
        MPI_Put(&v, 1, MPI_INT, 2, 0, 1, MPI_INT, win);
        MPI_Win_unlock(2, win);
        MPI_Win_unlock(1, win);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
