/* mpiscope-test
 * ranks: 2
 * expect: unmatched-message lines 16
 */
/* Rank 0 sends two messages with different tags; rank 1 receives only the first. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, a = 1, b = 2;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Send(&a, 1, MPI_INT, 1, 1, MPI_COMM_WORLD);
        MPI_Send(&b, 1, MPI_INT, 1, 2, MPI_COMM_WORLD);
    } else {
        MPI_Recv(&a, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return 0;
}
