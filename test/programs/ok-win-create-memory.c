/* mpiscope-test
 * ranks: 2
 * expect: none
 */
/* Windows exactly as large as the memory they expose: a stack array, a heap block, the tail of a heap block,
 * memory from MPI_Alloc_mem, and a zero-size window with a NULL base. Each is accessed at its last element. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define N 10

static void expose(void *base, MPI_Aint bytes, int rank)
{
    MPI_Win win;
    int one = rank + 1;
    MPI_Win_create(base, bytes, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_fence(0, win);
    if (bytes > 0)
        MPI_Put(&one, 1, MPI_INT, 1 - rank, bytes / (MPI_Aint)sizeof(int) - 1, 1, MPI_INT, win);
    MPI_Win_fence(0, win);
    MPI_Win_free(&win);
}

int main(int argc, char **argv)
{
    int rank, local[N];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int *block = malloc(N * sizeof(int));
    int *mem = NULL;
    MPI_Alloc_mem(N * sizeof(int), MPI_INFO_NULL, &mem);
    expose(local, sizeof local, rank);
    expose(block, N * sizeof(int), rank);
    expose(block + 4, (N - 4) * sizeof(int), rank);
    expose(mem, N * sizeof(int), rank);
    expose(NULL, 0, rank);
    printf("rank %d: %d %d %d\n", rank, local[N - 1], block[N - 1], mem[N - 1]);
    MPI_Free_mem(mem);
    free(block);
    MPI_Finalize();
    return 0;
}
