/* mpiscope-test
 * ranks: 2
 * expect: none
 */
/* Each rank sends itself a synchronous message on MPI_COMM_SELF, probes it, cancels the send and frees its
 * request without waiting: the cancel may succeed (MPICH withdraws the message) or not, and the program cannot
 * tell; then it posts a receive and cancels that too. A message whose send was cancelled is not owed a receive
 * (MPICH's pt2pt/issendselfcancel.c). */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    MPI_Request req;
    MPI_Status status;

    MPI_Init(&argc, &argv);
    MPI_Issend(NULL, 0, MPI_BYTE, 0, 123, MPI_COMM_SELF, &req);
    MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_SELF, &status);
    if (status.MPI_TAG != 123) printf("probed tag %d\n", status.MPI_TAG);
    MPI_Cancel(&req);
    MPI_Request_free(&req);
    MPI_Irecv(NULL, 0, MPI_BYTE, 0, 123, MPI_COMM_SELF, &req);
    MPI_Cancel(&req);
    MPI_Wait(&req, &status);
    MPI_Finalize();
    return 0;
}
