/* mpiscope-test
 * ranks: 2
 * expect: deadlock lines 21,23
 * expect: message-mismatch error lines 21,23
 */
/* Rank 0 sends on a duplicate of MPI_COMM_WORLD, rank 1 receives on MPI_COMM_WORLD itself: the
 * same ranks and tag, another communicator, so the message never matches. The send is
 * synchronous, so both ranks hang, each waiting for the other. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, value = 3;
    MPI_Comm dup;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    if (rank == 0) {
        /* The duplicate: a different communication context. */
        MPI_Ssend(&value, 1, MPI_INT, 1, 0, dup);
    } else if (rank == 1) {
        MPI_Recv(&value, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }

    MPI_Comm_free(&dup);
    MPI_Finalize();
    return 0;
}
