/* mpiscope-test
 * ranks: 2
 * mode: memcheck
 * expect: local-concurrency lines 20,21
 */
/* Passive target: the origin buffer of a Put is rewritten before MPI_Win_unlock completed the Put. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, *base;
    double v[3] = {1.5, 2.5, 3.5};
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_allocate(3 * sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    if (rank == 1) {
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
        MPI_Put(v, 3, MPI_DOUBLE, 0, 0, 3, MPI_DOUBLE, win);
        v[2] = 0.0;
        MPI_Win_unlock(0, win);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
