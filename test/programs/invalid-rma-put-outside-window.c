/* mpiscope-test
 * ranks: 2
 * expect: invalid-argument error lines 24
 */
/* Every rank exposes a window of four ints (displacement unit sizeof(int)); rank 0 puts four ints into rank 1's
 * at displacement 2, so the last two land past the end of rank 1's part of the window. MPI fails the put
 * (MPI_ERR_RMA_RANGE); the window's errors return so that the job goes on. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, value[4] = {1, 2, 3, 4}, window_mem[4] = {0};
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_create(window_mem, sizeof window_mem, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);

    MPI_Win_fence(0, win);
    if (rank == 0) {
        /* Elements 2 to 5 of a four-element window. */
        int rc = MPI_Put(value, 4, MPI_INT, 1, 2, 4, MPI_INT, win);
        if (rc == MPI_SUCCESS) printf("the library accepted it\n");
    }
    MPI_Win_fence(0, win);

    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
