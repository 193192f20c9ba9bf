/* mpiscope-test
 * ranks: 2
 * expect: none
 */
/* Each rank starts its send with MPI_Isend, receives the other's message with a blocking MPI_Recv, and only
 * then waits for its send: the receive is posted before the Wait, so this completes without any buffering. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, out, in = -1;
    MPI_Request req;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    out = rank * 10;
    MPI_Isend(&out, 1, MPI_INT, 1 - rank, 0, MPI_COMM_WORLD, &req);
    MPI_Recv(&in, 1, MPI_INT, 1 - rank, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Finalize();
    return 0;
}
