/* mpiscope-test
 * ranks: 3
 * mode: memcheck
 * expect: none
 */
/* A shared counter in rank 0's window, updated by every rank under an exclusive lock of rank 0: ranks 1 and 2 with
 * MPI_Get and MPI_Put, rank 0 by loading and storing its own memory while it holds the exclusive lock of its own
 * window, which keeps the other ranks' epochs out. The same program with rank 0 touching the counter without
 * its lock would race. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, *base, v;
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_allocate(2 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    base[0] = base[1] = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    for (int k = 0; k < 3; k++) {
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
        if (rank == 0) {
            base[0] += 1;
        } else {
            MPI_Get(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, win);
            MPI_Win_flush(0, win);
            v += 1;
            MPI_Put(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, win);
        }
        MPI_Win_unlock(0, win);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0 && base[0] != 9)
        printf("counter %d, expected 9\n", base[0]);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
