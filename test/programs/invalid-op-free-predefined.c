/* mpiscope-test
 * ranks: 2
 * expect: invalid-argument lines 17
 */
/* MPI_Op_free of MPI_SUM, a predefined op. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Op op = MPI_SUM;
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        MPI_Op_free(&op);
    MPI_Finalize();
    return 0;
}
