/* mpiscope-test
 * ranks: 2
 * expect: deadlock lines 17
 */
/* Synchronous sends complete only when the matching receive has started, so two ranks that
 * both Ssend first wait for each other whatever the message size. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, out, in = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int peer = 1 - rank;
    out = rank;
    MPI_Ssend(&out, 1, MPI_INT, peer, 0, MPI_COMM_WORLD);
    MPI_Recv(&in, 1, MPI_INT, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Finalize();
    return 0;
}
