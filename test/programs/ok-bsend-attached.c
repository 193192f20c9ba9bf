/* mpiscope-test
 * ranks: 2
 * expect: none
 */
/* Both ranks send before they receive, but in buffered mode into a buffer attached for the
 * purpose, so the sends complete locally: neither a deadlock nor a potential one. */
#include <mpi.h>
#include <stdlib.h>

#define COUNT 1000

int main(int argc, char **argv)
{
    int rank, pack_size;
    int out[COUNT], in[COUNT];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int peer = 1 - rank;
    for (int i = 0; i < COUNT; i++)
        out[i] = rank;

    MPI_Pack_size(COUNT, MPI_INT, MPI_COMM_WORLD, &pack_size);
    int buffer_size = pack_size + MPI_BSEND_OVERHEAD;
    void *buffer = malloc(buffer_size);
    MPI_Buffer_attach(buffer, buffer_size);
    MPI_Bsend(out, COUNT, MPI_INT, peer, 0, MPI_COMM_WORLD);
    MPI_Recv(in, COUNT, MPI_INT, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    /* Detaching waits until the buffered message has left the buffer. */
    MPI_Buffer_detach(&buffer, &buffer_size);
    free(buffer);
    MPI_Finalize();
    return 0;
}
