/* mpiscope-test
 * ranks: 2
 * expect: invalid-argument lines 17
 */
/* MPI_Graph_neighbors_count on a Cartesian communicator, on every rank: it needs a graph topology. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int dims[1] = {2}, periods[1] = {0}, n = 0, rank;
    MPI_Comm cart;
    MPI_Init(&argc, &argv);
    MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &cart);
    MPI_Comm_rank(cart, &rank);
    MPI_Graph_neighbors_count(cart, rank, &n);
    MPI_Comm_free(&cart);
    MPI_Finalize();
    return 0;
}
