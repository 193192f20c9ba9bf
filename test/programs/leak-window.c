/* mpiscope-test
 * ranks: 2
 * expect: resource-leak lines 17
 */
/* Every rank creates a window, uses it for one fenced put, and never frees it: one leak at the
 * MPI_Win_create line, with a location on each rank. */
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
    MPI_Put(&rank, 1, MPI_INT, (rank + 1) % size, 0, 1, MPI_INT, win);
    MPI_Win_fence(0, win);
    MPI_Finalize();
    return 0;
}
