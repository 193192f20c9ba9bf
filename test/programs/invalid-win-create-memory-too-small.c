/* mpiscope-test
 * ranks: 2
 * expect: invalid-argument lines 26
 * expect: invalid-argument lines 31
 */
/* Windows larger than the memory they expose, so that other ranks' accesses reach past it: the address of the
 * pointer variable instead of the array it points to (8 bytes of stack for a 40-byte window, the usual slip of
 * `&buffer` for `buffer`), and a heap block of 10 ints exposed as 20. No access is made: the windows are wrong
 * as created. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define N 10

int main(int argc, char **argv)
{
    int rank;
    MPI_Win win, heap_win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int *buffer = malloc(N * sizeof(int));
    int *half = malloc(N * sizeof(int));
    /* Wrong: &buffer is the pointer variable. */
    MPI_Win_create(&buffer, N * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_fence(0, win);
    MPI_Win_fence(0, win);
    MPI_Win_free(&win);
    /* Wrong: the block holds N ints, the window says 2N. */
    MPI_Win_create(half, 2 * N * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &heap_win);
    MPI_Win_free(&heap_win);
    printf("rank %d done\n", rank);
    free(buffer);
    free(half);
    MPI_Finalize();
    return 0;
}
