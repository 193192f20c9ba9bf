/* mpiscope-test
 * ranks: 3
 * expect: none
 */
/* A request-based read, completed, then a write of the same bytes in one passive-target epoch: each rank reads
 * its right neighbour's block with MPI_Rget, waits for that request (the data has arrived: the read is over),
 * adds one to it and writes it back with MPI_Rput, which it waits for too, all inside MPI_Win_lock_all. Only the
 * left neighbour touches a rank's window, and its write follows its own completed read: no race (the MPI
 * standard's own example of request-based RMA works so). A second read of those bytes after the MPI_Rput's wait
 * would race with it: an MPI_Rput's completion frees its origin buffer, it does not say the data has landed. */
#include <mpi.h>
#include <stdio.h>

#define N 4

int main(int argc, char **argv)
{
    int rank, size;
    double *base, block[N];
    MPI_Win win;
    MPI_Request get, put;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Win_allocate(N * sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    for (int i = 0; i < N; i++) base[i] = rank * 10 + i;
    MPI_Barrier(MPI_COMM_WORLD);

    int right = (rank + 1) % size;
    MPI_Win_lock_all(0, win);
    MPI_Rget(block, N, MPI_DOUBLE, right, 0, N, MPI_DOUBLE, win, &get);
    MPI_Wait(&get, MPI_STATUS_IGNORE);
    for (int i = 0; i < N; i++) block[i] += 1;
    MPI_Rput(block, N, MPI_DOUBLE, right, 0, N, MPI_DOUBLE, win, &put);
    MPI_Wait(&put, MPI_STATUS_IGNORE);
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    if (base[0] != rank * 10 + 1) printf("rank %d: %g, expected %d\n", rank, base[0], rank * 10 + 1);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
