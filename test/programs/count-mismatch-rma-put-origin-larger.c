/* mpiscope-test
 * ranks: 2
 * expect: count-mismatch error lines 23
 */
/* Rank 0 puts four ints from its origin buffer into two ints of rank 1's window: a put moves its data as a send
 * and a receive would, and the target side (target_count × target_datatype) must hold all of it. MPI fails the
 * put or truncates it; the window's errors return so that the job goes on. */
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
        int rc = MPI_Put(value, 4, MPI_INT, 1, 0, 2, MPI_INT, win);
        if (rc == MPI_SUCCESS) printf("the library accepted it\n");
    }
    MPI_Win_fence(0, win);

    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
