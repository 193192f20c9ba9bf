/* mpiscope-test
 * ranks: 3
 * expect: deadlock lines 19,21
 */
/* Ranks 0 and 1 each receive from the other first (a receive-receive deadlock), and rank 2,
 * which sent rank 1 a message for later, waits for rank 0. Rank 1's receive names rank 0, which
 * could still send to it were it not blocked: rank 2's message is not reported as a mismatch of
 * that receive (it is meant for a later one). */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, value = 3;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 2) {
        MPI_Send(&value, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
        MPI_Recv(&value, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
        MPI_Recv(&value, 1, MPI_INT, 1 - rank, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(&value, 1, MPI_INT, 1 - rank, 0, MPI_COMM_WORLD);
        if (rank == 1) MPI_Recv(&value, 1, MPI_INT, 2, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return 0;
}
