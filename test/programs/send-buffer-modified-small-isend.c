/* mpiscope-test
 * ranks: 2
 * expect: send-buffer-modified lines 18
 * expect: send-buffer-modified lines 18
 */
/* A small Isend, which MPI completes at once (MPICH returns a shared, already complete request), written before
 * its Wait: still a bug by the standard, found through the address of the caller's request variable. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank;
    double buf[4] = { 0 }, in[4];
    MPI_Request r[2];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Irecv(in, 4, MPI_DOUBLE, 1 - rank, 5, MPI_COMM_WORLD, &r[0]);
    MPI_Isend(buf, 4, MPI_DOUBLE, 1 - rank, 5, MPI_COMM_WORLD, &r[1]);
    buf[0] = 1;
    MPI_Wait(&r[1], MPI_STATUS_IGNORE);
    MPI_Wait(&r[0], MPI_STATUS_IGNORE);
    MPI_Finalize();
    return 0;
}
