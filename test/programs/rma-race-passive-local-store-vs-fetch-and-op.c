/* mpiscope-test
 * ranks: 2
 * mode: memcheck
 * expect: rma-race lines 26,29
 */
/* Rank 1 increments a counter in rank 0's window with MPI_Fetch_and_op under a shared lock while rank 0 resets
 * the same counter with a plain store: the fetching atomic is atomic only against other accumulates, not against
 * the target's own loads and stores, and nothing orders the two, so the count and the value rank 1 fetched are
 * undefined. Rank 0 must update the counter through MPI too (MPI_Accumulate with MPI_REPLACE on itself), lock its
 * own window exclusively around the store, or wait for a message or barrier after rank 1's unlock. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, *base, one = 1, old = -1;
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_allocate(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    for (int i = 0; i < 4; i++)
        base[i] = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        base[2] = 100;
    } else {
        MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
        MPI_Fetch_and_op(&one, &old, MPI_INT, 0, 2, MPI_SUM, win);
        MPI_Win_unlock(0, win);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("%d\n", base[2]);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
