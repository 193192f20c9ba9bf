/* mpiscope-test
 * ranks: 2
 * expect: none
 */
/* Rank 1 posts a receive for tag 2 first, then receives tag 1: rank 0's tag-1 message waits
 * beside the pending tag-2 receive for a while, but both are matched in the end (not a mismatch).
 * A receive that is cancelled and a wildcard probe are not mismatches either. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, a = 1, b = 2, c = 0, flag = 0;
    MPI_Request req, cancelled;
    MPI_Status status;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Send(&a, 1, MPI_INT, 1, 1, MPI_COMM_WORLD);
        MPI_Send(&b, 1, MPI_INT, 1, 2, MPI_COMM_WORLD);
        MPI_Send(&c, 1, MPI_INT, 1, 3, MPI_COMM_WORLD);
    } else if (rank == 1) {
        MPI_Irecv(&b, 1, MPI_INT, 0, 2, MPI_COMM_WORLD, &req);
        MPI_Irecv(&c, 1, MPI_INT, 0, 9, MPI_COMM_WORLD, &cancelled);
        MPI_Recv(&a, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        MPI_Cancel(&cancelled);
        MPI_Wait(&cancelled, &status);
        MPI_Test_cancelled(&status, &flag);
        MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &status);
        MPI_Recv(&c, 1, MPI_INT, status.MPI_SOURCE, status.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return 0;
}
