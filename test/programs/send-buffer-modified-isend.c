/* mpiscope-test
 * ranks: 2
 * expect: send-buffer-modified lines 17
 */
/* Rank 0 overwrites the first element of a buffer whose send is still pending. Whether rank 1
 * sees the old or the new value depends on when the library copied the data. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, data[4] = {1, 2, 3, 4};
    MPI_Request req;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Isend(data, 4, MPI_INT, 1, 0, MPI_COMM_WORLD, &req);
        data[0] = 99; /* too early: the send owns the buffer until MPI_Wait returns */
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    } else {
        MPI_Recv(data, 4, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return 0;
}
