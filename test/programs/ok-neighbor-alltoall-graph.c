/* mpiscope-test
 * ranks: 4
 * expect: none
 */
/* The twin of count-mismatch-neighbor-alltoall-graph.c: the hub and its spokes (MPI_Graph_create)
 * exchange blocks of the same size with MPI_Neighbor_alltoall, and a duplicate of the graph
 * communicator carries the second exchange. */
#include <mpi.h>
#include <stdio.h>

#define BATCH 6

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
    MPI_Comm copy;
    MPI_Comm_dup(star, &copy);
    int out[16 * BATCH], in[16 * BATCH];
    for (int step = 0; step < 2; step++) {
        for (int i = 0; i < 16 * BATCH; i++)
            out[i] = rank * 1000 + step * 100 + i;
        MPI_Neighbor_alltoall(out, BATCH, MPI_INT, in, BATCH, MPI_INT, step == 0 ? star : copy);
    }
    if (rank == 0)
        printf("hub got %d\n", in[0]);
    MPI_Comm_free(&copy);
    MPI_Comm_free(&star);
    MPI_Finalize();
    return 0;
}
