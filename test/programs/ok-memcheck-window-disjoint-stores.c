/* mpiscope-test
 * ranks: 3
 * mode: memcheck
 * expect: none
 */
/* In one fence epoch, ranks 1 and 2 put into the upper half of rank 0's window while rank 0 stores into the lower
 * half: disjoint bytes, no race. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, *base, mine;
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_allocate(8 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    for (int i = 0; i < 8; i++)
        base[i] = 0;
    mine = 100 + rank;
    MPI_Win_fence(0, win);
    if (rank != 0) {
        MPI_Put(&mine, 1, MPI_INT, 0, 4 + rank, 1, MPI_INT, win);
    } else {
        for (int i = 0; i < 4; i++)
            base[i] = i;
    }
    MPI_Win_fence(0, win);
    if (rank == 0)
        printf("%d %d %d\n", base[3], base[5], base[6]);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
