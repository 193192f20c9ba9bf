/* mpiscope-test
 * ranks: 2
 * expect: resource-leak lines 16
 */
/* Every rank creates a window, adds its rank into rank 0's in one fence epoch, and never frees it: one
 * leak at the MPI_Win_create line, with a location on each rank. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, mem = 0;
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_create(&mem, sizeof mem, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_fence(0, win);
    MPI_Accumulate(&rank, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_SUM, win);
    MPI_Win_fence(0, win);
    MPI_Finalize();
    return 0;
}
