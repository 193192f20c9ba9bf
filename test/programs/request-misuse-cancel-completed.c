/* mpiscope-test
 * ranks: 2
 * expect: request-misuse lines 26
 */
/* Rank 1 cancels a receive through a copy of its request handle after MPI_Wait completed it: the request is
 * gone (MPI_Wait freed it and set `request` to MPI_REQUEST_NULL). MPICH returns an error (the program ignores
 * it: MPI_ERRORS_RETURN); Open MPI returns MPI_SUCCESS. To cancel, call MPI_Cancel on the live request before
 * waiting for it. Rank 0 sends only after the barrier, so the receive is still pending when MPI_Irecv returns. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, value = 7;
    MPI_Request request = MPI_REQUEST_NULL, copy;

    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 1)
        MPI_Irecv(&value, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, &request);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1) {
        copy = request;
        MPI_Wait(&request, MPI_STATUS_IGNORE);
        /* The bug: the receive completed and was freed by the Wait above; `copy` is a stale handle. */
        MPI_Cancel(&copy);
    } else if (rank == 0) {
        MPI_Send(&value, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
