/* mpiscope-test
 * ranks: 2
 * expect: deadlock lines 21
 */
/* Both ranks send 4 MB before receiving. A message that large is never buffered (both Open MPI
 * and MPICH switch to a rendezvous protocol), so each send waits for a receive that is never posted. */
#include <mpi.h>
#include <stdlib.h>

#define COUNT (512 * 1024) /* 512 Ki doubles = 4 MiB */

int main(int argc, char **argv)
{
    int rank;
    double *out = calloc(COUNT, sizeof(double));
    double *in = calloc(COUNT, sizeof(double));

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int peer = 1 - rank;
    MPI_Send(out, COUNT, MPI_DOUBLE, peer, 0, MPI_COMM_WORLD);
    MPI_Recv(in, COUNT, MPI_DOUBLE, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Finalize();
    free(out);
    free(in);
    return 0;
}
