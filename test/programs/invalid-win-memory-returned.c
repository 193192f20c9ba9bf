/* mpiscope-test
 * ranks: 2
 * expect: invalid-argument lines 35
 */
/* A window made by a helper over its own local array, and used after the helper returned: the window's memory is
 * stack that the program's next calls reuse, and what another rank would put into it would land there (no Put is
 * made here: it smashes the frames of whatever runs then). Found at the first synchronization of the window after
 * the return (once per window). */
#include <mpi.h>
#include <stdio.h>

#define N 10

static void make_window(MPI_Win *win)
{
    int buffer[N] = {0};
    MPI_Win_create(buffer, N * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, win);
}

static int deeper(int x)
{
    volatile int scratch[64];
    for (int i = 0; i < 64; i++)
        scratch[i] = x + i;
    return scratch[63];
}

int main(int argc, char **argv)
{
    int rank;
    MPI_Win win;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    make_window(&win);
    MPI_Win_fence(0, win); /* wrong: make_window's buffer is gone */
    MPI_Win_fence(0, win);
    printf("rank %d: %d\n", rank, deeper(rank));
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
