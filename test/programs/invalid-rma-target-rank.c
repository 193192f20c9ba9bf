/* mpiscope-test
 * ranks: 2
 * expect: invalid-argument lines 21
 */
/* The last rank puts to "the next rank" without wrapping around: target rank 2 is not a rank of the
 * window's group of 2. The shim reports it before the call reaches MPI, which ends the job on it. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, size, mem = 0;
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Win_create(&mem, sizeof mem, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);

    MPI_Win_fence(0, win);
    if (rank == size - 1) {
        MPI_Put(&rank, 1, MPI_INT, rank + 1, 0, 1, MPI_INT, win);
    }
    MPI_Win_fence(0, win);

    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
