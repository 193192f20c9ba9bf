/* mpiscope-test
 * ranks: 2
 * expect: potential-deadlock lines 17
 */
/* Both ranks send one int before receiving. It completes only because the library buffers small
 * standard-mode sends; with a larger message (see deadlock-send-send-large.c) it hangs. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, out, in;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int peer = 1 - rank;
    out = rank;
    MPI_Send(&out, 1, MPI_INT, peer, 0, MPI_COMM_WORLD);
    MPI_Recv(&in, 1, MPI_INT, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Finalize();
    return 0;
}
