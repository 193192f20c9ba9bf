/* mpiscope-test
 * ranks: 2
 * expect: invalid-argument lines 15
 */
/* A graph of 3 nodes over a communicator of 2 processes. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int index[3] = {1, 2, 3}, edges[3] = {1, 2, 0};
    MPI_Comm graph;
    MPI_Init(&argc, &argv);
    MPI_Graph_create(MPI_COMM_WORLD, 3, index, edges, 0, &graph);
    MPI_Finalize();
    return 0;
}
