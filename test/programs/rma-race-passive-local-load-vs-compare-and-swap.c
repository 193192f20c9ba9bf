/* mpiscope-test
 * ranks: 2
 * mode: memcheck
 * expect: rma-race lines 28,31
 */
/* Rank 1 takes a slot in rank 0's window with MPI_Compare_and_swap (0 -> its rank + 1) inside MPI_Win_lock_all
 * while rank 0 reads the slot with a plain load: nothing orders the load with the swap, so rank 0 may see either
 * value, or a torn one on a machine where MPI's atomics are not the CPU's. Rank 0 must read the slot through MPI
 * (MPI_Fetch_and_op with MPI_NO_OP), lock its own window exclusively around the load, or read it after a barrier
 * that follows rank 1's unlock. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, *base, mine, zero = 0, old = -1, seen = 0;
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_allocate(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    for (int i = 0; i < 4; i++)
        base[i] = 0;
    mine = rank + 1;
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        volatile int *slot = &base[1];
        seen = *slot;
    } else {
        MPI_Win_lock_all(0, win);
        MPI_Compare_and_swap(&mine, &zero, &old, MPI_INT, 0, 1, win);
        MPI_Win_unlock_all(win);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    printf("%d %d\n", seen, old);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
