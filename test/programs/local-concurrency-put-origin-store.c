/* mpiscope-test
 * ranks: 2
 * mode: memcheck
 * expect: local-concurrency lines 23,24
 */
/* Rank 1 puts a value into rank 0's window and reuses the origin buffer before the closing fence: the target may
 * get the old value or the new one. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, *base, origin[4] = {1, 2, 3, 4};
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_allocate(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    for (int i = 0; i < 4; i++)
        base[i] = 0;
    MPI_Win_fence(0, win);
    if (rank == 1) {
        MPI_Put(origin, 4, MPI_INT, 0, 0, 4, MPI_INT, win);
        origin[0] = 100;
    }
    MPI_Win_fence(0, win);
    if (rank == 0)
        printf("%d\n", base[0]);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
