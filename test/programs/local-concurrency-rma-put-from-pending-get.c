/* mpiscope-test
 * ranks: 2
 * mode: memcheck
 * expect: local-concurrency lines 26,27
 */
/* Under a lock of rank 1's window, rank 0 gets element 0 into `v` and, before any flush, puts `v` into element
 * 1: the put reads a buffer the pending get is still filling, so element 1 may receive the old value of `v` or
 * element 0's (the two target elements are distinct: no race at the target, only at the origin buffer). A
 * MPI_Win_flush_local(1, win) between the two calls makes it correct. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, *base, v = -1;
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_allocate(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    for (int i = 0; i < 4; i++)
        base[i] = 10 * rank + i;
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
        MPI_Get(&v, 1, MPI_INT, 1, 0, 1, MPI_INT, win);
        MPI_Put(&v, 1, MPI_INT, 1, 1, 1, MPI_INT, win);
        MPI_Win_unlock(1, win);
    }
    MPI_Barrier(MPI_COMM_WORLD);

    if (rank == 1) printf("element 1 is %d\n", base[1]);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
