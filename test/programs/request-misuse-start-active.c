/* mpiscope-test
 * ranks: 2
 * expect: request-misuse lines 22
 */
/* Rank 0 starts a persistent send twice without completing it in between. MPICH rejects the
 * second start (MPI_ERRORS_RETURN keeps the job alive); Open MPI sends the message a second time.
 * Rank 0 tells rank 1 how many messages went out before waiting, so the run ends cleanly with both
 * libraries and would even with unbuffered sends. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, value = 5, messages = 1;
    MPI_Request req;

    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Send_init(&value, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, &req);
        MPI_Start(&req);
        if (MPI_Start(&req) == MPI_SUCCESS)
            messages = 2;
        MPI_Send(&messages, 1, MPI_INT, 1, 1, MPI_COMM_WORLD);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        MPI_Request_free(&req);
    } else {
        MPI_Recv(&messages, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (int i = 0; i < messages; i++)
            MPI_Recv(&value, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return 0;
}
