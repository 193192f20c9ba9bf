/* mpiscope-test
 * ranks: 2
 * expect: none
 */
/* Both ranks start a send with MPI_Isend, test it once (as BLACS does after each send, to free its buffers
 * early), receive, and only then wait for the send. Correct without any buffering: the Test returns false,
 * the receives are posted, both sends complete. Here the small messages are buffered, so the Test completes
 * its send at the first try; a Test seen only succeeding is not a wait (the trace cannot tell it from
 * `while (!done) MPI_Test(...)`, which would hang without buffering: mpiscope reports such a loop only when it
 * sees the Test fail and be called again). */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, out, in = -1, done = 0;
    MPI_Request req;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    out = rank + 100;
    MPI_Isend(&out, 1, MPI_INT, 1 - rank, 4, MPI_COMM_WORLD, &req);
    MPI_Test(&req, &done, MPI_STATUS_IGNORE);
    MPI_Recv(&in, 1, MPI_INT, 1 - rank, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (!done)
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Finalize();
    return in == 1 - rank + 100 ? 0 : 1;
}
