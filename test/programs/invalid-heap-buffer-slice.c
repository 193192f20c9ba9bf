/* mpiscope-test
 * ranks: 2
 * expect: invalid-argument lines 30
 * expect: invalid-argument lines 34
 */
/* Slices of malloc'd arrays that run past their end: rank 0 sends the last rows of a 100-double array as if it
 * had 110, in a loop (one finding), and every rank reduces 64 ints from the middle of a 40-int block. Many
 * small blocks are allocated first, so that the block is found by walking the heap, not by its first byte. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank;
    void *keep[200];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int i = 0; i < 200; i++)
        keep[i] = malloc(16 + (i % 7) * 8);
    double *rows = malloc(100 * sizeof(double));
    int *block = malloc(40 * sizeof(int)), sum[64];
    for (int i = 0; i < 100; i++)
        rows[i] = i;
    for (int i = 0; i < 40; i++)
        block[i] = rank;
    for (int step = 0; step < 3; step++) {
        if (rank == 0)
            MPI_Send(rows + 90, 20, MPI_DOUBLE, 1, step, MPI_COMM_WORLD); /* wrong: 10 doubles remain */
        else
            MPI_Recv(rows, 20, MPI_DOUBLE, 0, step, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Reduce(block + 8, sum, 64, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD); /* wrong: 32 ints remain */
    printf("rank %d: %g %d\n", rank, rows[0], rank == 0 ? sum[0] : block[8]);
    for (int i = 0; i < 200; i++)
        free(keep[i]);
    free(rows);
    free(block);
    MPI_Finalize();
    return 0;
}
