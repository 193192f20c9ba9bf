/* mpiscope-test
 * ranks: 1
 * expect: invalid-argument lines 14
 */
/* MPI_Dims_create for 6 nodes with the first extent fixed at 4, which does not divide 6. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int dims[2] = {4, 0};
    MPI_Init(&argc, &argv);
    MPI_Dims_create(6, 2, dims);
    MPI_Finalize();
    return 0;
}
