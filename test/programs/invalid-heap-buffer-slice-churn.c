/* mpiscope-test
 * ranks: 2
 * expect: invalid-argument lines 56
 */
/* Slices of thousands of heap blocks, in a heap that changes between the calls: blocks freed (merging with their
 * free neighbours, whose old headers stay in memory), others allocated into the holes and written over, and
 * the surviving blocks' slices sent again. All of those fit their blocks and must give nothing, whatever the
 * shim remembered of the heap's layout from the first round; only the last call, a slice that runs 3 doubles
 * past the end of a block deep in the heap, is wrong. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { N = 6000 };

static int elems(int i) { return 8 + i % 13; }

int main(int argc, char **argv)
{
    static double *blk[N], *fill[N];
    double out[64], total = 0;
    int rank;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int i = 0; i < N; i++) {
        blk[i] = malloc(elems(i) * sizeof(double));
        for (int j = 0; j < elems(i); j++)
            blk[i][j] = i + j;
    }
    /* Round 1: a slice of every fifth block, each fitting its block. */
    for (int i = 0; i < N; i += 5) {
        MPI_Allreduce(blk[i] + 2, out, elems(i) - 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        total += out[0];
    }
    /* The heap changes: two blocks of every three in the middle third are freed (neighbours merge), and blocks
     * of other sizes are allocated into the holes and written over, headers of the merged chunks included. */
    for (int i = N / 3; i < 2 * N / 3; i++)
        if (i % 3 != 0) {
            free(blk[i]);
            blk[i] = NULL;
        }
    for (int i = N / 3; i < 2 * N / 3; i += 3) {
        fill[i] = malloc(24 * sizeof(double));
        memset(fill[i], 0x41, 24 * sizeof(double));
    }
    /* Round 2: slices of every surviving block, each fitting its block. */
    for (int i = 0; i < N; i += 2)
        if (blk[i] != NULL) {
            MPI_Allreduce(blk[i] + 1, out, elems(i) - 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
            total += out[0];
        }
    /* The one wrong call: 3 doubles past the end of a block near the heap's top. */
    int last = N - 10;
    MPI_Allreduce(blk[last] + 4, out, elems(last) - 4 + 3, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    printf("rank %d: %g\n", rank, total + out[0]);
    for (int i = 0; i < N; i++) {
        free(blk[i]);
        if (i % 3 == 0)
            free(fill[i]);
    }
    MPI_Finalize();
    return 0;
}
