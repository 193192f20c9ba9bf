/* mpiscope-test
 * ranks: 2
 * mode: memcheck
 * expect: rma-race lines 26,29
 */
/* Rank 1 reads element 3 of rank 0's window with MPI_Get under a shared lock while rank 0 updates that element:
 * nothing orders the store with the get, so rank 1 may read the old value, the new one, or (for a wider type) a
 * mix. Rank 0 must lock its own window exclusively around the update, or the ranks must meet (a barrier or a
 * message) between the update and the get. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, *base, got = -1;
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_allocate(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    for (int i = 0; i < 4; i++)
        base[i] = i;
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        for (int i = 0; i < 4; i++)
            base[i] *= 10;
    } else {
        MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
        MPI_Get(&got, 1, MPI_INT, 0, 3, 1, MPI_INT, win);
        MPI_Win_unlock(0, win);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1)
        printf("%d\n", got);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
