/* mpiscope-test
 * ranks: 2
 * expect: invalid-argument lines 22
 */
/* On a periodic ring of two ranks (each has two neighbours, left and right), MPI_Neighbor_allgather receives one
 * integer from each neighbour into a NULL buffer on every rank. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size, mine;
    int dims[1], periods[1] = {1};
    MPI_Comm ring;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    dims[0] = size;
    MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring);
    mine = rank;
    MPI_Neighbor_allgather(&mine, 1, MPI_INT, NULL, 1, MPI_INT, ring);
    MPI_Comm_free(&ring);
    MPI_Finalize();
    return 0;
}
