/* mpiscope-test
 * ranks: 1
 * expect: invalid-argument note lines 16
 */
/* A derived type committed twice: legal and harmless, so a note. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Datatype pair;
    MPI_Init(&argc, &argv);
    MPI_Type_contiguous(2, MPI_INT, &pair);
    MPI_Type_commit(&pair);
    MPI_Type_commit(&pair); /* again */
    MPI_Type_free(&pair);
    MPI_Finalize();
    return 0;
}
