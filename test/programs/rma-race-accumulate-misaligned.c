/* mpiscope-test
 * ranks: 3
 * expect: rma-race lines 25,27
 */
/* Ranks 1 and 2 accumulate two ints each with MPI_SUM into rank 0's window in one fence epoch, the same op on
 * the same type, but the window's displacement unit is 1 and rank 2 starts one byte further: its ints straddle
 * rank 1's. Accumulates are atomic element by element only, so the bytes both touch may end up with either's
 * sum or a mix (MPI guarantees nothing when the elements do not coincide). */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, add[2], window_mem[4] = {0};
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    add[0] = add[1] = rank;
    MPI_Win_create(window_mem, sizeof window_mem, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);

    MPI_Win_fence(0, win);
    if (rank == 1) {
        /* Bytes 0 to 7 of rank 0's window. */
        MPI_Accumulate(add, 2, MPI_INT, 0, 0, 2, MPI_INT, MPI_SUM, win);
    } else if (rank == 2) {
        MPI_Accumulate(add, 2, MPI_INT, 0, 1, 2, MPI_INT, MPI_SUM, win);
    }
    MPI_Win_fence(0, win);

    if (rank == 0) printf("element 0 is %d\n", window_mem[0]);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
