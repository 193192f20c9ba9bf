/* mpiscope-test
 * ranks: 2
 * expect: call-order lines 22
 */
/* Rank 0 puts into rank 1's window and closes the epoch with a fence that asserts MPI_MODE_NOPRECEDE ("this fence
 * completes no locally issued RMA call"), which the Put makes false: the Put may never complete (MPI-3.1
 * 11.5.5). The first fence may assert it; the closing one may not. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, value = 42, buf[4] = { 0, 0, 0, 0 };
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_create(buf, sizeof buf, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_fence(MPI_MODE_NOPRECEDE, win);
    if (rank == 0)
        MPI_Put(&value, 1, MPI_INT, 1, 0, 1, MPI_INT, win);
    MPI_Win_fence(MPI_MODE_NOPRECEDE, win);
    MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
    printf("rank %d: %d\n", rank, buf[0]);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
