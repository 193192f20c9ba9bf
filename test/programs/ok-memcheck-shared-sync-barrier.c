/* mpiscope-test
 * ranks: 2
 * mode: memcheck
 * expect: none
 */
/* The correct twin of rma-race-shared-direct-store-vs-owner-load.c: rank 1 stores into rank 0's segment of the
 * shared window, then both ranks synchronize (MPI_Win_sync, MPI_Barrier, MPI_Win_sync) before rank 0 reads it; then
 * rank 0 answers into rank 1's segment, ordered the same way before rank 1 reads. Each rank also keeps writing
 * its own other elements, which no one else touches. */
#include <mpi.h>
#include <stdio.h>

static void sync_all(MPI_Win win)
{
    MPI_Win_sync(win);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_sync(win);
}

int main(int argc, char **argv)
{
    int rank, *mine, *other, disp, seen = 0;
    MPI_Aint size;
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_allocate_shared(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mine, &win);
    MPI_Win_shared_query(win, 1 - rank, &size, &disp, &other);
    for (int i = 0; i < 4; i++)
        mine[i] = 0;
    MPI_Win_lock_all(0, win);
    sync_all(win);
    if (rank == 1)
        other[3] = 42;
    mine[0] = rank + 1;
    sync_all(win);
    if (rank == 0) {
        seen = mine[3];
        other[2] = seen + 1;
    }
    mine[1] = rank + 10;
    sync_all(win);
    if (rank == 1)
        seen = mine[2];
    MPI_Win_unlock_all(win);
    printf("%d %d\n", rank, seen);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
