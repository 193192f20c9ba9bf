/* mpiscope-test
 * ranks: 2
 * expect: resource-leak lines 21
 */
/* Rank 1 posts a receive, and the message arrives (the barrier after the send makes sure of it), but rank 1 never
 * waits for or tests the request: the receive completed inside MPI, yet the program never learns it and the
 * request is still allocated at MPI_Finalize. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, v = 0;
    MPI_Request req;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        v = 9;
        MPI_Send(&v, 1, MPI_INT, 1, 2, MPI_COMM_WORLD);
    } else {
        MPI_Irecv(&v, 1, MPI_INT, 0, 2, MPI_COMM_WORLD, &req);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
