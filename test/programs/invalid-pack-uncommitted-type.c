/* mpiscope-test
 * ranks: 1
 * expect: invalid-argument lines 17
 */
/* MPI_Pack with a derived type that was never committed. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Datatype pair;
    int in[2] = {1, 2}, position = 0;
    char out[64];
    MPI_Init(&argc, &argv);
    MPI_Type_contiguous(2, MPI_INT, &pair);
    MPI_Pack(in, 1, pair, out, sizeof out, &position, MPI_COMM_WORLD);
    MPI_Type_free(&pair);
    MPI_Finalize();
    return 0;
}
