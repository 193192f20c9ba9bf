/* mpiscope-test
 * ranks: 2
 * expect: invalid-argument lines 15
 */
/* MPI_Cart_create with a negative number of dimensions. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int dims[1] = {2}, periods[1] = {0};
    MPI_Comm cart;
    MPI_Init(&argc, &argv);
    MPI_Cart_create(MPI_COMM_WORLD, -1, dims, periods, 0, &cart);
    MPI_Finalize();
    return 0;
}
