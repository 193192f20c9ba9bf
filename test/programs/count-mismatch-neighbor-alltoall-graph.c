/* mpiscope-test
 * ranks: 4
 * expect: count-mismatch lines 36
 */
/* A hub-and-spoke graph made with MPI_Graph_create: rank 0 is linked with every other rank, and the
 * spokes only with the hub. One MPI_Neighbor_alltoall per step hands each spoke a batch of work from
 * the hub and the hub each spoke's answer. Every rank sends blocks of BATCH values, but the spokes post
 * receive blocks of RESULT values (their own result size), shorter than the hub's batches: Open MPI
 * fails the exchange with a truncation error, MPICH lets it pass and overwrites past the block. */
#include <mpi.h>
#include <stdio.h>

#define BATCH 6
#define RESULT 4

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int index[16], edges[32], k = 0;
    for (int r = 1; r < size; r++)
        edges[k++] = r;
    index[0] = k;
    for (int r = 1; r < size; r++) {
        edges[k++] = 0;
        index[r] = k;
    }
    MPI_Comm star;
    MPI_Graph_create(MPI_COMM_WORLD, size, index, edges, 0, &star);
    MPI_Comm_rank(star, &rank);
    int out[16 * BATCH], in[16 * BATCH];
    for (int step = 0; step < 2; step++) {
        for (int i = 0; i < 16 * BATCH; i++)
            out[i] = rank * 1000 + step * 100 + i;
        MPI_Neighbor_alltoall(out, BATCH, MPI_INT, in, rank == 0 ? BATCH : RESULT, MPI_INT, star);
    }
    if (rank == 0)
        printf("hub got %d\n", in[0]);
    MPI_Comm_free(&star);
    MPI_Finalize();
    return 0;
}
