/* mpiscope-test
 * ranks: 4
 * expect: none
 */
/* The ring of count-mismatch-neighbor-allgatherv-dist-graph.c, described with MPI_Dist_graph_create instead of
 * the adjacent form: each rank gives the edges from itself to the two ranks after it, so no call's arguments name
 * a rank's sources (the shim asks MPI for them). Each rank owns rank + 1 values and MPI_Neighbor_allgatherv
 * receives one block per source, in the order MPI_Dist_graph_neighbors gives, with the counts of those sources
 * (the correct twin of count-mismatch-neighbor-allgatherv-dist-graph-general.c). */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int degree = 2, dests[2] = {(rank + 1) % size, (rank + 2) % size};
    MPI_Comm ring;
    MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &rank, &degree, dests, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &ring);
    int sources[2], outs[2];
    MPI_Dist_graph_neighbors(ring, 2, sources, MPI_UNWEIGHTED, 2, outs, MPI_UNWEIGHTED);

    int mine[8], got[16], counts[2], displs[2];
    for (int i = 0; i <= rank; i++)
        mine[i] = rank * 10 + i;
    for (int k = 0; k < 2; k++) {
        counts[k] = sources[k] + 1;
        displs[k] = k * 8;
    }
    for (int k = 0; k < 16; k++)
        got[k] = -1;
    MPI_Neighbor_allgatherv(mine, rank + 1, MPI_INT, got, counts, displs, MPI_INT, ring);
    int sum = 0, total = 0;
    for (int k = 0; k < 16; k++)
        sum += got[k] > 0 ? got[k] : 0;
    MPI_Allreduce(&sum, &total, 1, MPI_INT, MPI_SUM, ring);
    if (rank == 0)
        printf("shared sum %d\n", total);
    MPI_Comm_free(&ring);
    MPI_Finalize();
    return 0;
}
