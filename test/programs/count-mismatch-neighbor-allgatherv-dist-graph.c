/* mpiscope-test
 * ranks: 4
 * expect: count-mismatch lines 35
 */
/* Each rank owns rank + 1 values and shares them with the two ranks after it on a ring described with
 * MPI_Dist_graph_create_adjacent (sources: the two ranks before it; destinations: the two after it).
 * MPI_Neighbor_allgatherv receives one block per source, in the order the sources were given. The
 * receive counts are computed from the destinations' ranks instead of the sources', so each rank
 * expects the wrong amount from both of its sources. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int sources[2] = {(rank + size - 1) % size, (rank + size - 2) % size};
    int dests[2] = {(rank + 1) % size, (rank + 2) % size};
    MPI_Comm ring;
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, sources, MPI_UNWEIGHTED, 2, dests, MPI_UNWEIGHTED,
                                   MPI_INFO_NULL, 0, &ring);

    int mine[8], got[16], counts[2], displs[2];
    for (int i = 0; i <= rank; i++)
        mine[i] = rank * 10 + i;
    for (int k = 0; k < 2; k++) {
        counts[k] = dests[k] + 1;
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
