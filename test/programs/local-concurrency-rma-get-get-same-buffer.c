/* mpiscope-test
 * ranks: 2
 * mode: memcheck
 * expect: local-concurrency lines 26,27
 */
/* Rank 0 gets two elements of rank 1's window into the same variable in one fence epoch. Both gets write it
 * before the closing fence, in no order MPI promises: the variable may end up with either element (MPI-4.1
 * §12.3: a Get's origin buffer must not be accessed until the get completes, and another get writing it is
 * such an access). Nothing reads or writes the variable between the calls: only the two calls overlap. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, *base, got = -1;
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_allocate(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    for (int i = 0; i < 4; i++)
        base[i] = 10 * rank + i;

    MPI_Win_fence(0, win);
    if (rank == 0) {
        MPI_Get(&got, 1, MPI_INT, 1, 0, 1, MPI_INT, win);
        MPI_Get(&got, 1, MPI_INT, 1, 1, 1, MPI_INT, win);
    }
    MPI_Win_fence(0, win);

    if (rank == 0) printf("got %d\n", got);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
