/* mpiscope-test
 * ranks: 2
 * expect: none
 */
/* Windows over local arrays that outlive them: main's own array, and an array of a function that creates, uses
 * and frees its window before it returns, called from deep in the stack and then from a shallower frame. */
#include <mpi.h>
#include <stdio.h>

#define N 10

static int exchange(int rank)
{
    int buffer[N] = {0}, one = rank + 1;
    MPI_Win win;
    MPI_Win_create(buffer, N * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_fence(0, win);
    MPI_Put(&one, 1, MPI_INT, 1 - rank, N - 1, 1, MPI_INT, win);
    MPI_Win_fence(0, win);
    MPI_Win_free(&win);
    return buffer[N - 1];
}

static int nested(int depth, int rank)
{
    volatile int pad[32];
    pad[0] = depth;
    return depth == 0 ? exchange(rank) : nested(depth - 1, rank) + pad[0] - depth;
}

int main(int argc, char **argv)
{
    int rank, local[N] = {0}, one = 1;
    MPI_Win win;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_create(local, sizeof local, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    int a = nested(5, rank);
    int b = exchange(rank);
    MPI_Win_fence(0, win);
    MPI_Put(&one, 1, MPI_INT, 1 - rank, 0, 1, MPI_INT, win);
    MPI_Win_fence(0, win);
    MPI_Win_free(&win);
    printf("rank %d: %d %d %d\n", rank, a, b, local[0]);
    MPI_Finalize();
    return 0;
}
