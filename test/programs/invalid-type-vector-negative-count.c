/* mpiscope-test
 * ranks: 1
 * expect: invalid-argument lines 14
 */
/* MPI_Type_vector with a count of -1. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Datatype column;
    MPI_Init(&argc, &argv);
    MPI_Type_vector(-1, 1, 4, MPI_DOUBLE, &column);
    MPI_Finalize();
    return 0;
}
