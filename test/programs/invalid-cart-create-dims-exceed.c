/* mpiscope-test
 * ranks: 2
 * expect: invalid-argument lines 15
 */
/* A 2x2 Cartesian grid asked of a communicator of 2 processes: the dims need more processes than there are. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int dims[2] = {2, 2}, periods[2] = {0, 0};
    MPI_Comm cart;
    MPI_Init(&argc, &argv);
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
    MPI_Finalize();
    return 0;
}
