/* mpiscope-test
 * ranks: 2
 * expect: none
 */
/* The correct twin of call-order-rma-fence-then-lock.c: the fence that ends the exchange says
 * MPI_MODE_NOSUCCEED (no epoch follows it), so the lock epoch after it overlaps nothing; the last fence says
 * MPI_MODE_NOPRECEDE. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, buf[4] = {0, 0, 0, 0}, v;
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_create(buf, sizeof buf, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    v = rank + 1;
    MPI_Win_fence(MPI_MODE_NOPRECEDE, win);
    MPI_Put(&v, 1, MPI_INT, 1 - rank, rank, 1, MPI_INT, win);
    MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
    if (rank == 0) {
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
        MPI_Put(&v, 1, MPI_INT, 1, 2, 1, MPI_INT, win);
        MPI_Win_unlock(1, win);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
