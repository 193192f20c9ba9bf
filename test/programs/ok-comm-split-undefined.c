/* mpiscope-test
 * ranks: 4
 * expect: none
 */
/* Only even ranks join the new communicator; odd ranks pass MPI_UNDEFINED and get MPI_COMM_NULL,
 * which they must neither use nor free. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, sum = 0;
    MPI_Comm evens;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2 == 0 ? 0 : MPI_UNDEFINED, rank, &evens);
    if (evens != MPI_COMM_NULL) {
        MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, evens);
        MPI_Comm_free(&evens);
    }
    MPI_Finalize();
    return 0;
}
