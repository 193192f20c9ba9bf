/* mpiscope-test
 * ranks: 2
 * expect: invalid-argument lines 21
 * mpi: openmpi
 */
/* Rank 1 accumulates into a double of rank 0's window with MPI_BAND, which MPI defines only for integers
 * and bytes. The shim reports it before the call reaches MPI. (MPICH 4.0.2 accepts the call and then hangs
 * in the closing fence, which mpiscope reports as an unexplained hang as well: see README.md.) */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank;
    double *mem, x = 1.0;
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_allocate(sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
    MPI_Win_fence(0, win);
    if (rank == 1) MPI_Accumulate(&x, 1, MPI_DOUBLE, 0, 0, 1, MPI_DOUBLE, MPI_BAND, win);
    MPI_Win_fence(0, win);

    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
