/* mpiscope-test
 * ranks: 3
 * mode: memcheck
 * expect: rma-race lines 29,33
 */
/* Three ranks share memory through MPI_Win_allocate_shared. Rank 2 puts into element 1 of rank 0's segment under
 * a shared lock while rank 1 stores into the same element directly (through MPI_Win_shared_query's pointer): the
 * direct store is not ordered with the put, so which value remains is undefined. Lock rank 0 exclusively around
 * the direct store, or order it with the put by a barrier after rank 2's unlock. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, *mine, *seg0, disp, v = 5;
    MPI_Aint size;
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_allocate_shared(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mine, &win);
    MPI_Win_shared_query(win, 0, &size, &disp, &seg0);
    for (int i = 0; i < 4; i++)
        mine[i] = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1) {
        MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
        MPI_Win_sync(win);
        seg0[1] = 9;
        MPI_Win_unlock(0, win);
    } else if (rank == 2) {
        MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
        MPI_Put(&v, 1, MPI_INT, 0, 1, 1, MPI_INT, win);
        MPI_Win_unlock(0, win);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("%d\n", mine[1]);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
