/* mpiscope-test
 * ranks: 1
 * expect: invalid-argument lines 14
 */
/* MPI_Type_free of MPI_DOUBLE. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Datatype t = MPI_DOUBLE;
    MPI_Init(&argc, &argv);
    MPI_Type_free(&t);
    MPI_Finalize();
    return 0;
}
