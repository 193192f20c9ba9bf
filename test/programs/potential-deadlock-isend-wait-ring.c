/* mpiscope-test
 * ranks: 3
 * expect: potential-deadlock warning lines 20
 */
/* Every rank sends its value to the next rank with MPI_Isend, waits for that send, and only then receives
 * from the previous rank. An Isend completed by MPI_Wait is a standard-mode send: the Wait returns only once
 * the message is buffered or received. The messages are small, so MPI buffers them here; without buffering
 * (larger messages, another library) every rank waits in MPI_Wait for a receive no rank has posted. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, size, out, in = -1;
    MPI_Request req;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    out = rank;
    MPI_Isend(&out, 1, MPI_INT, (rank + 1) % size, 0, MPI_COMM_WORLD, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Recv(&in, 1, MPI_INT, (rank + size - 1) % size, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Finalize();
    return 0;
}
