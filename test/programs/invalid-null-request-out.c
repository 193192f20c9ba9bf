/* mpiscope-test
 * ranks: 2
 * expect: invalid-argument error lines 20
 */
/* Rank 0 starts a send but passes NULL where MPI should store the request, so it could never wait for it. MPI
 * fails the call (or crashes writing through the pointer); mpiscope names the argument before the call. The errors
 * return so that the job goes on; nothing is sent, so rank 1 receives nothing. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, v = 7;

    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Request *where = NULL;
        int rc = MPI_Isend(&v, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, where);
        if (rc == MPI_SUCCESS)
            printf("the library accepted it\n");
    }
    MPI_Finalize();
    return 0;
}
