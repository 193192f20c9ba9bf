/* mpiscope-test
 * ranks: 2
 * expect: invalid-argument note lines 15
 */
/* periods[0] is 2: C reads it as true, but a logical given as 2 is probably a mistake (note, not an error). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int dims[1] = {2}, periods[1] = {2}, rank;
    MPI_Comm cart;
    MPI_Init(&argc, &argv);
    MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &cart);
    MPI_Comm_rank(cart, &rank);
    MPI_Comm_free(&cart);
    MPI_Finalize();
    return 0;
}
