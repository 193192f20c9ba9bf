/* mpiscope-test
 * ranks: 3
 * expect: rma-race lines 24,26
 */
/* Ranks 1 and 2 both put a value into element 0 of rank 0's window between the same two fences:
 * which value rank 0 sees afterwards depends on timing (MPI calls the result undefined). */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, mine, window_mem[4] = {0};
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    mine = 100 + rank;
    MPI_Win_create(window_mem, sizeof window_mem, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD,
                   &win);

    MPI_Win_fence(0, win);
    if (rank == 1) {
        /* The first writer. */
        MPI_Put(&mine, 1, MPI_INT, 0, 0, 1, MPI_INT, win);
    } else if (rank == 2) {
        MPI_Put(&mine, 1, MPI_INT, 0, 0, 1, MPI_INT, win);
    }
    MPI_Win_fence(0, win);

    if (rank == 0) printf("element 0 is %d\n", window_mem[0]);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
