/* mpiscope-test
 * ranks: 2
 * expect: none
 */
/* The correct twin of potential-deadlock-isend-test-loop.c: each rank posts its receive with MPI_Irecv before
 * it starts the send, then polls both requests with MPI_Testall, so no send waits for a receive not posted. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, out, in = -1, done = 0;
    MPI_Request reqs[2];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    out = rank + 100;
    MPI_Irecv(&in, 1, MPI_INT, 1 - rank, 4, MPI_COMM_WORLD, &reqs[0]);
    MPI_Isend(&out, 1, MPI_INT, 1 - rank, 4, MPI_COMM_WORLD, &reqs[1]);
    while (!done)
        MPI_Testall(2, reqs, &done, MPI_STATUSES_IGNORE);
    MPI_Finalize();
    return 0;
}
