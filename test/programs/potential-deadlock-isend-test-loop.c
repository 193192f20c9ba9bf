/* mpiscope-test
 * ranks: 2
 * expect: potential-deadlock warning lines 18
 */
/* Both ranks start a send with MPI_Isend and poll it with MPI_Test until it completes, receiving only after.
 * The Test loop is a Wait: with small messages MPI buffers them and the loop ends, but without buffering
 * each rank polls forever for a send whose receive the other never posts. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, out, in = -1, done = 0;
    MPI_Request req;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    out = rank + 100;
    MPI_Isend(&out, 1, MPI_INT, 1 - rank, 4, MPI_COMM_WORLD, &req);
    while (!done)
        MPI_Test(&req, &done, MPI_STATUS_IGNORE);
    MPI_Recv(&in, 1, MPI_INT, 1 - rank, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Finalize();
    return 0;
}
