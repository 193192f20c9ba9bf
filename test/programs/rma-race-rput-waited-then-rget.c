/* mpiscope-test
 * ranks: 2
 * expect: rma-race lines 28,30
 */
/* The other order of ok-rma-rget-wait-then-rput.c: rank 0 writes rank 1's block with MPI_Rput, waits for that
 * request and reads the same bytes back with MPI_Rget in the same passive-target epoch, with no flush between
 * them. An MPI_Rput's completion only frees its origin buffer; it does not say the data has reached the target,
 * so the read may see the old or the new values: a race (MPI_Win_flush before the read orders them). */
#include <mpi.h>
#include <stdio.h>

#define N 4

int main(int argc, char **argv)
{
    int rank;
    double *base, out[N] = {1, 2, 3, 4}, in[N];
    MPI_Win win;
    MPI_Request put, get;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_allocate(N * sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    for (int i = 0; i < N; i++) base[i] = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
        MPI_Rput(out, N, MPI_DOUBLE, 1, 0, N, MPI_DOUBLE, win, &put);
        MPI_Wait(&put, MPI_STATUS_IGNORE);
        MPI_Rget(in, N, MPI_DOUBLE, 1, 0, N, MPI_DOUBLE, win, &get);
        MPI_Wait(&get, MPI_STATUS_IGNORE);
        MPI_Win_unlock(1, win);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
