/* Included by buffer-overlap-irecv-in-header.c: a helper defined in a header ahead of the program's own code, so
 * that its lines come first in the compilation unit's line table. */
#include <mpi.h>

static void post_second_half(int *buf, int peer, MPI_Request *req)
{
    MPI_Irecv(buf, 2, MPI_INT, peer, 0, MPI_COMM_WORLD, req);
}
