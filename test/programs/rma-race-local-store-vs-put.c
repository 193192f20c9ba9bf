/* mpiscope-test
 * ranks: 2
 * mode: memcheck
 * expect: rma-race lines 23,25
 */
/* Rank 1 puts into rank 0's window while rank 0 stores into the same element of its own window, in one fence
 * epoch: which value survives is undefined. */
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
    MPI_Win_fence(0, win);
    if (rank == 1)
        MPI_Put(&one, 1, MPI_INT, 0, 5, 1, MPI_INT, win);
    else
        base[5] = 2;
    MPI_Win_fence(0, win);
    if (rank == 0)
        printf("%d\n", base[5]);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
