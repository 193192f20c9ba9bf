/* mpiscope-test
 * ranks: 3
 * expect: none
 */
/* One long MPI_Win_lock_all epoch on every rank: each rank writes its rank into its own slot of rank 0's
 * window and flushes; after a barrier each rank reads the slot of the next rank. The flush completes each put
 * at rank 0 before the barrier and the gets come after it, so nothing races although the epochs overlap. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size, *slots, seen = -1;
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Win_allocate(size * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &slots, &win);
    for (int i = 0; i < size; i++) slots[i] = -1;
    MPI_Barrier(MPI_COMM_WORLD);

    MPI_Win_lock_all(0, win);
    MPI_Put(&rank, 1, MPI_INT, 0, rank, 1, MPI_INT, win);
    MPI_Win_flush(0, win);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Get(&seen, 1, MPI_INT, 0, (rank + 1) % size, 1, MPI_INT, win);
    MPI_Win_flush(0, win);
    MPI_Win_unlock_all(win);

    if (seen != (rank + 1) % size) printf("rank %d read %d\n", rank, seen);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
