/* mpiscope-test
 * ranks: 2
 * expect: none
 */
/* Both ranks start a synchronous send and a receive without blocking, then wait for both: unlike
 * deadlock-ssend-ssend.c, the receives are posted before anyone waits. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, out, in;
    MPI_Request reqs[2];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int peer = 1 - rank;
    out = rank;
    MPI_Issend(&out, 1, MPI_INT, peer, 0, MPI_COMM_WORLD, &reqs[0]);
    MPI_Irecv(&in, 1, MPI_INT, peer, 0, MPI_COMM_WORLD, &reqs[1]);
    MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
    MPI_Finalize();
    return 0;
}
