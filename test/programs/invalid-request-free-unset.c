/* mpiscope-test
 * ranks: 2
 * expect: invalid-argument error lines 25
 */
/* Rank 1 frees a request variable that no call ever set (here zeroed, as an uninitialized variable on a fresh
 * stack often is): zero bits are not MPI_REQUEST_NULL in Open MPI (an object's address) nor in MPICH
 * (0x2c000000), so it names no request. Open MPI fails MPI_Request_free with MPI_ERR_REQUEST and, under
 * MPI_ERRORS_ARE_FATAL, aborts the job; mpiscope names the argument before the call. The errors return here so
 * that the job goes on. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    int rank, v = 7;
    MPI_Request req;

    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    memset(&req, 0, sizeof req);
    MPI_Bcast(&v, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank == 1) {
        int rc = MPI_Request_free(&req);
        if (rc == MPI_SUCCESS)
            printf("the library accepted it\n");
    }
    MPI_Finalize();
    return 0;
}
