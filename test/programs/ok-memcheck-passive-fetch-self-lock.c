/* mpiscope-test
 * ranks: 3
 * mode: memcheck
 * expect: none
 */
/* A correct twin of rma-race-passive-local-store-vs-fetch-and-op.c: ranks 1 and 2 increment rank 0's counter with
 * MPI_Fetch_and_op and swap a slot with MPI_Compare_and_swap under shared locks, while rank 0 resets the counter
 * and reads the slot with plain loads and stores only inside an exclusive lock of its own window, which no shared
 * lock can overlap. After the barrier that follows every unlock it reads them without a lock. Each atomic has its
 * own result buffer: two pending ones writing one would leave it undefined (local-concurrency-rma-get-get-*.c). */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, *base, one = 1, old = -1, old2 = -1, mine, zero = 0, seen = 0;
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_allocate(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    for (int i = 0; i < 4; i++)
        base[i] = 0;
    mine = rank;
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
        base[2] = 100;
        seen = base[1];
        MPI_Win_unlock(0, win);
    } else {
        MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
        MPI_Fetch_and_op(&one, &old, MPI_INT, 0, 2, MPI_SUM, win);
        MPI_Compare_and_swap(&mine, &zero, &old2, MPI_INT, 0, 1, win);
        MPI_Win_unlock(0, win);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("%d %d %d\n", seen, base[1], base[2]);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
