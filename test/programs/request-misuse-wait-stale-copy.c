/* mpiscope-test
 * ranks: 2
 * expect: request-misuse lines 27
 */
/* Rank 0 keeps a copy of its Isend request and waits on both: the first MPI_Wait completes the request and
 * sets `request` to MPI_REQUEST_NULL, so the second Wait is given a handle to a request that no longer
 * exists. Both libraries happen to return at once; the handle could as well name a recycled request.
 * The message is large so that the Isend is not complete when it returns (a request MPI hands out already
 * complete is shared by the library, and a copy of it cannot be told from MPI_REQUEST_NULL). */
#include <mpi.h>

#define COUNT (1 << 18)
static int data[COUNT];

int main(int argc, char **argv)
{
    int rank;
    MPI_Request request, copy;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Isend(data, COUNT, MPI_INT, 1, 0, MPI_COMM_WORLD, &request);
        copy = request;
        MPI_Wait(&request, MPI_STATUS_IGNORE);
        /* The bug: `copy` still names the request the Wait above completed and freed. */
        MPI_Wait(&copy, MPI_STATUS_IGNORE);
    } else if (rank == 1) {
        MPI_Recv(data, COUNT, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return 0;
}
