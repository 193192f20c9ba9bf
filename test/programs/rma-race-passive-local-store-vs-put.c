/* mpiscope-test
 * ranks: 2
 * mode: memcheck
 * expect: rma-race lines 25,28
 */
/* Rank 1 locks rank 0's window exclusively and puts into element 5 while rank 0 stores into the same element of
 * its own window: an origin's exclusive lock does not keep the target's own loads and stores out, and nothing
 * orders the store with the put, so which value survives is undefined. Rank 0 must lock its own window
 * exclusively around the store, or wait for a message or barrier after rank 1's unlock. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, *base, one = 1;
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_allocate(8 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    for (int i = 0; i < 8; i++)
        base[i] = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        base[5] = 2;
    } else {
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
        MPI_Put(&one, 1, MPI_INT, 0, 5, 1, MPI_INT, win);
        MPI_Win_unlock(0, win);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("%d\n", base[5]);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
