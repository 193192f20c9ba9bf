/* mpiscope-test
 * ranks: 2
 * expect: invalid-argument note lines 14
 */
/* MPI_Comm_create with MPI_GROUP_EMPTY: legal (every rank gets MPI_COMM_NULL) but makes nothing: a note. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Comm none;
    MPI_Init(&argc, &argv);
    MPI_Comm_create(MPI_COMM_WORLD, MPI_GROUP_EMPTY, &none);
    MPI_Finalize();
    return 0;
}
