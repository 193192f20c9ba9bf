/* mpiscope-test
 * ranks: 2
 * expect: deadlock lines 23
 * expect: request-misuse error lines 19,20
 */
/* Each rank makes a persistent send to the other and posts its receive, but never calls MPI_Start:
 * MPI_Wait on the inactive persistent request returns at once, so each goes on to wait for the
 * other's message, which was never sent. The missing MPI_Start is reported at the MPI_Send_init
 * and at the receive it starves, beside the deadlock. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, out = 1, in = 0;
    MPI_Request send, recv;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Send_init(&out, 1, MPI_INT, 1 - rank, 0, MPI_COMM_WORLD, &send);
    MPI_Irecv(&in, 1, MPI_INT, 1 - rank, 0, MPI_COMM_WORLD, &recv);
    /* MPI_Start(&send) is missing here. */
    MPI_Wait(&send, MPI_STATUS_IGNORE);
    MPI_Wait(&recv, MPI_STATUS_IGNORE);
    MPI_Request_free(&send);
    MPI_Finalize();
    return 0;
}
