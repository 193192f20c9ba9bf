/* mpiscope-test
 * ranks: 2
 * expect: deadlock lines 19,24
 */
/* Rank 0 waits for a send and a receive together, but rank 1 only takes rank 0's message and
 * never sends the reply; rank 1 goes on to MPI_Finalize and waits there for rank 0 forever. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, out = 7, in = 0;
    MPI_Request reqs[2];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Irecv(&in, 1, MPI_INT, 1, 1, MPI_COMM_WORLD, &reqs[0]);
        MPI_Isend(&out, 1, MPI_INT, 1, 2, MPI_COMM_WORLD, &reqs[1]);
        MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
    } else {
        MPI_Recv(&in, 1, MPI_INT, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        /* The reply with tag 1 that rank 0 expects is missing here. */
    }
    MPI_Finalize();
    return 0;
}
