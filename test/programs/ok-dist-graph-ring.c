/* mpiscope-test
 * ranks: 3
 * expect: none
 */
/* A ring as a distributed graph: each rank names its two neighbours; a neighbourhood allgather over it. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, size, sources[2], dests[2], indeg, outdeg, weighted, got[2], mine;
    MPI_Comm ring;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    sources[0] = dests[0] = (rank + size - 1) % size;
    sources[1] = dests[1] = (rank + 1) % size;
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, sources, MPI_UNWEIGHTED, 2, dests, MPI_UNWEIGHTED,
                                   MPI_INFO_NULL, 0, &ring);
    MPI_Dist_graph_neighbors_count(ring, &indeg, &outdeg, &weighted);
    mine = rank;
    MPI_Neighbor_allgather(&mine, 1, MPI_INT, got, 1, MPI_INT, ring);
    MPI_Comm_free(&ring);
    MPI_Finalize();
    return 0;
}
