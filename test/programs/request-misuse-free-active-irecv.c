/* mpiscope-test
 * ranks: 2
 * expect: request-misuse lines 19
 */
/* Rank 1 frees a receive request that is still active. MPI lets the receive finish in the
 * background, but the program can never learn when the buffer holds the data (or may be reused).
 * The message does match that receive, so it is not also an unmatched message. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, value = 0;
    MPI_Request req;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 1) {
        MPI_Irecv(&value, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, &req);
        MPI_Request_free(&req);
        MPI_Barrier(MPI_COMM_WORLD);
    } else {
        MPI_Barrier(MPI_COMM_WORLD);
        value = 8;
        MPI_Send(&value, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
