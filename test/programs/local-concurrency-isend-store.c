/* mpiscope-test
 * ranks: 2
 * mode: memcheck
 * expect: local-concurrency lines 18,19
 */
/* The memcheck twin of send-buffer-modified-isend.c: rank 0 overwrites an element of a buffer whose send is still
 * pending, and the finding points at the store itself (the checksum finding is not repeated). */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, data[4] = {1, 2, 3, 4};
    MPI_Request req;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Isend(data, 4, MPI_INT, 1, 0, MPI_COMM_WORLD, &req);
        data[0] = 99;
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    } else {
        MPI_Recv(data, 4, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return 0;
}
