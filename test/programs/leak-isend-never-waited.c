/* mpiscope-test
 * ranks: 2
 * expect: resource-leak lines 17
 */
/* Rank 0 starts a send and never waits for it or frees its request. The message is small, so it
 * is delivered anyway, but the request is still allocated at MPI_Finalize. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, value = 3;
    MPI_Request req;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        MPI_Isend(&value, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, &req);
    else
        MPI_Recv(&value, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Finalize();
    return 0;
}
