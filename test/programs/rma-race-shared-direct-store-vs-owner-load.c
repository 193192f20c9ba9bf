/* mpiscope-test
 * ranks: 2
 * mode: memcheck
 * expect: rma-race lines 31,33
 */
/* The two ranks share memory through MPI_Win_allocate_shared. Rank 1 stores into rank 0's segment through the
 * pointer MPI_Win_shared_query gave it, while rank 0 reads the same element: nothing orders the store and the
 * load (the barrier comes after both), so rank 0 may read the old value or the new one. Order them: rank 1
 * stores, then MPI_Win_sync and MPI_Barrier on both ranks, then MPI_Win_sync on rank 0 before its load. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, *mine, *seg0, disp, seen = 0;
    MPI_Aint size;
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_allocate_shared(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mine, &win);
    MPI_Win_shared_query(win, 0, &size, &disp, &seg0);
    for (int i = 0; i < 4; i++)
        mine[i] = 0;
    MPI_Win_lock_all(0, win);
    MPI_Win_sync(win);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_sync(win);
    if (rank == 0) {
        volatile int *p = &mine[3];
        seen = *p;
    } else {
        seg0[3] = 42;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_unlock_all(win);
    printf("%d\n", seen);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
