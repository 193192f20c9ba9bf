/* mpiscope-test
 * ranks: 2
 * expect: invalid-argument lines 29
 */
/* Rank 0 makes a persistent buffered send (MPI_Bsend_init) and starts it three times, with room
 * attached for one message; rank 1 receives only after a barrier that follows all three. Each MPI_Wait
 * completes as soon as the message is in the buffer, not when it is received, so the second start may
 * find the buffer still full. The finding is at MPI_Start, the call that needs the space. Fix: attach
 * room for three messages, or receive before the next start. */
#include <mpi.h>
#include <stdlib.h>

#define COUNT 10

int main(int argc, char **argv)
{
    int rank, pack_size, data[COUNT] = {0};
    MPI_Request req;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Pack_size(COUNT, MPI_INT, MPI_COMM_WORLD, &pack_size);
    int size = pack_size + MPI_BSEND_OVERHEAD;
    void *buffer = malloc(size);
    if (rank == 0) {
        MPI_Buffer_attach(buffer, size);
        MPI_Bsend_init(data, COUNT, MPI_INT, 1, 0, MPI_COMM_WORLD, &req);
        for (int i = 0; i < 3; i++) {
            MPI_Start(&req);
            MPI_Wait(&req, MPI_STATUS_IGNORE);
        }
        MPI_Request_free(&req);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1)
        for (int i = 0; i < 3; i++)
            MPI_Recv(data, COUNT, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    else
        MPI_Buffer_detach(&buffer, &size);
    free(buffer);
    MPI_Finalize();
    return 0;
}
