/* mpiscope-test
 * ranks: 2
 * expect: request-misuse error lines 24
 */
/* Rank 0 frees the request of its nonblocking barrier instead of completing it; rank 1 waits for its own. MPI-3.1
 * 5.12 makes freeing (or cancelling) the request of a nonblocking collective erroneous; Open MPI fails the call
 * with MPI_ERR_REQUEST. The errors return here so that the job goes on. (Not on MPI_COMM_SELF: a library may
 * hand out a request already complete there, one that names no call.) */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, v = 7;
    MPI_Request req;

    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Bcast(&v, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Ibarrier(MPI_COMM_WORLD, &req);
    if (rank == 0) {
        int rc;
        rc = MPI_Request_free(&req);
        if (rc != MPI_SUCCESS)
            printf("the library refused it\n");
    } else
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Finalize();
    return 0;
}
