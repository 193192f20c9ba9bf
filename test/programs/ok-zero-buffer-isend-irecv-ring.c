/* mpiscope-test
 * ranks: 3
 * expect: none
 */
/* The correct twin of potential-deadlock-isend-wait-ring.c: the receive is posted with MPI_Irecv before the
 * Isend, and both requests complete in one MPI_Waitall, so no rank waits for a receive that is not posted. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, size, out, in = -1;
    MPI_Request reqs[2];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    out = rank;
    MPI_Irecv(&in, 1, MPI_INT, (rank + size - 1) % size, 0, MPI_COMM_WORLD, &reqs[0]);
    MPI_Isend(&out, 1, MPI_INT, (rank + 1) % size, 0, MPI_COMM_WORLD, &reqs[1]);
    MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
    MPI_Finalize();
    return 0;
}
