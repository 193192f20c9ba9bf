/* mpiscope-test
 * ranks: 3
 * expect: deadlock lines 23,26
 * expect: message-mismatch error lines 21,23
 */
/* Rank 1 waits for a message from rank 0, but the message comes from rank 2 (same tag and
 * communicator) and rank 0 never sends anything: it finalizes. The receive names the wrong
 * source; the message of rank 2 is never received. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, value = 3;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        /* Rank 0 has nothing to send. */
        value = 0;
    } else if (rank == 2) {
        MPI_Send(&value, 1, MPI_INT, 1, 5, MPI_COMM_WORLD);
    } else {
        MPI_Recv(&value, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }

    MPI_Finalize();
    return 0;
}
