/* mpiscope-test
 * ranks: 2
 * expect: buffer-overlap error lines 18,19
 */
/* Rank 1 posts a receive into its array, then sends from the same array while the receive is pending. Rank 0
 * sends the message that fills it before it receives rank 1's: it can arrive while rank 1's send still reads the
 * array, and what rank 0 gets depends on timing. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, data[4] = {1, 2, 3, 4}, other[4] = {5, 6, 7, 8};
    MPI_Request req;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 1) {
        MPI_Irecv(data, 4, MPI_INT, 0, 9, MPI_COMM_WORLD, &req);
        MPI_Send(data, 4, MPI_INT, 0, 1, MPI_COMM_WORLD);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    } else {
        MPI_Send(other, 4, MPI_INT, 1, 9, MPI_COMM_WORLD);
        MPI_Recv(other, 4, MPI_INT, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return 0;
}
