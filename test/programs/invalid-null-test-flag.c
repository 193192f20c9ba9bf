/* mpiscope-test
 * ranks: 2
 * expect: invalid-argument error lines 23
 */
/* Rank 0 tests its receive with NULL where MPI writes whether it completed: MPI fails the call (or crashes
 * writing through the pointer); mpiscope names the argument before the call. Then the receive is waited for as it
 * should be, and the message arrives. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, v = 7, got = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Request req;
        int *done = NULL;
        MPI_Irecv(&got, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, &req);
        MPI_Barrier(MPI_COMM_WORLD);
        int rc = MPI_Test(&req, done, MPI_STATUS_IGNORE);
        if (rc == MPI_SUCCESS)
            printf("the library accepted it\n");
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    } else {
        MPI_Send(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
