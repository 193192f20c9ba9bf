/* mpiscope-test
 * ranks: 2
 * expect: none
 */
/* Ready mode is correct only if the receive is already posted: rank 1 posts it before the barrier
 * and rank 0 sends only after the barrier, so the barrier orders the two. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, value = 0;
    MPI_Request req;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 1)
        MPI_Irecv(&value, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, &req);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        value = 3;
        MPI_Rsend(&value, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
    } else {
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return 0;
}
