/* mpiscope-test
 * ranks: 2
 * mode: memcheck
 * expect: local-concurrency lines 23,24
 */
/* Rank 1 reads the buffer an MPI_Get fills before the fence that completes the Get. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, *base, copy[2] = {0, 0};
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_allocate(2 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    base[0] = 10 + rank;
    base[1] = 20 + rank;
    MPI_Win_fence(0, win);
    int seen = 0;
    if (rank == 1) {
        MPI_Get(copy, 2, MPI_INT, 0, 0, 2, MPI_INT, win);
        seen = copy[1];
    }
    MPI_Win_fence(0, win);
    if (rank == 1)
        printf("%d %d\n", seen, copy[1]);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
