/* mpiscope-test
 * ranks: 3
 * expect: collective-mismatch lines 16,18
 */
/* Rank 0 asks for the maximum and the others for the sum. The library applies whichever op the
 * rank doing the arithmetic passed, so the ranks may even get different answers. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, result;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        MPI_Allreduce(&rank, &result, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    else
        MPI_Allreduce(&rank, &result, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
