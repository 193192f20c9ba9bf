/* mpiscope-test
 * ranks: 2
 * expect: none
 */
/* Each rank attaches room for exactly one buffered message. Rank 0 buffered-sends a ping and waits for
 * the pong before its next ping; rank 1 receives the ping before it buffered-sends the pong. Every
 * message has been received before its sender needs the space again: one slot is enough, however
 * large the messages. */
#include <mpi.h>
#include <stdlib.h>

#define COUNT 100000
#define ROUNDS 5

int main(int argc, char **argv)
{
    int rank, pack_size;
    int *data = calloc(COUNT, sizeof(int));

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int peer = 1 - rank;
    MPI_Pack_size(COUNT, MPI_INT, MPI_COMM_WORLD, &pack_size);
    int size = pack_size + MPI_BSEND_OVERHEAD;
    void *buffer = malloc(size);
    MPI_Buffer_attach(buffer, size);
    for (int i = 0; i < ROUNDS; i++) {
        if (rank == 0) {
            MPI_Bsend(data, COUNT, MPI_INT, peer, i, MPI_COMM_WORLD);
            MPI_Recv(data, COUNT, MPI_INT, peer, i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(data, COUNT, MPI_INT, peer, i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Bsend(data, COUNT, MPI_INT, peer, i, MPI_COMM_WORLD);
        }
    }
    MPI_Buffer_detach(&buffer, &size);
    free(buffer);
    free(data);
    MPI_Finalize();
    return 0;
}
