/* mpiscope-test
 * ranks: 2
 * expect: invalid-argument lines 31
 */
/* Rank 0 attaches room for two buffered messages and buffered-sends eight in a loop; rank 1 receives
 * them afterwards. Each message fits, but nothing tells rank 0 that rank 1 has taken the earlier ones:
 * from the third send on, the pending messages need more than the buffer holds. The messages are small,
 * so both MPIs transmit them at once and free the space, and the run happens to succeed; with 400 KB
 * messages both Open MPI and MPICH fail the third MPI_Bsend (buffer full). Fix: attach
 * N * (pack_size + MPI_BSEND_OVERHEAD), or wait for an acknowledgement before reusing the space. */
#include <mpi.h>
#include <stdlib.h>

#define COUNT 100
#define N 8

int main(int argc, char **argv)
{
    int rank, pack_size, data[COUNT] = {0};

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Pack_size(COUNT, MPI_INT, MPI_COMM_WORLD, &pack_size);
    if (rank == 0) {
        int size = 2 * (pack_size + MPI_BSEND_OVERHEAD);
        void *buffer = malloc(size);
        MPI_Buffer_attach(buffer, size);
        for (int i = 0; i < N; i++) {
            data[0] = i;
            /* With room for two messages, the third send may find the buffer full. */
            MPI_Bsend(data, COUNT, MPI_INT, 1, i, MPI_COMM_WORLD);
        }
        MPI_Buffer_detach(&buffer, &size);
        free(buffer);
    } else {
        for (int i = 0; i < N; i++)
            MPI_Recv(data, COUNT, MPI_INT, 0, i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return 0;
}
