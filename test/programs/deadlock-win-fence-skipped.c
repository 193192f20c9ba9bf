/* mpiscope-test
 * ranks: 2
 * expect: deadlock lines 22,25
 */
/* MPI_Win_fence is collective over the window's group: rank 1 puts into rank 0's window and then skips the
 * closing fence, waiting in a barrier instead, while rank 0 waits in the fence for rank 1. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, mem[2] = {0, 0}, one = 1;
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_create(mem, sizeof mem, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);

    MPI_Win_fence(0, win);
    if (rank == 0) {
        /* Rank 0 closes the epoch, as it should.
         */
        MPI_Win_fence(0, win);
    } else {
        MPI_Put(&one, 1, MPI_INT, 0, 1, 1, MPI_INT, win);
        MPI_Barrier(MPI_COMM_WORLD);
    }

    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
