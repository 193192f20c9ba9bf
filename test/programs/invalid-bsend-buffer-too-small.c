/* mpiscope-test
 * ranks: 2
 * expect: invalid-argument lines 24
 */
/* Rank 0 attaches a 64-byte buffer and buffered-sends 400 bytes. MPICH returns MPI_ERR_BUFFER;
 * Open MPI happens to send the message directly. Rank 0 tells rank 1 whether the data went out,
 * so that rank 1 receives it only if it exists and the run ends normally with both libraries. */
#include <mpi.h>
#include <stdlib.h>

#define COUNT 100

int main(int argc, char **argv)
{
    int rank, data[COUNT] = {0}, sent = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        int size = 64 + MPI_BSEND_OVERHEAD;
        void *buffer = malloc(size);
        MPI_Buffer_attach(buffer, size);
        sent = MPI_Bsend(data, COUNT, MPI_INT, 1, 0, MPI_COMM_WORLD) == MPI_SUCCESS;
        MPI_Send(&sent, 1, MPI_INT, 1, 1, MPI_COMM_WORLD);
        MPI_Buffer_detach(&buffer, &size);
        free(buffer);
    } else {
        MPI_Recv(&sent, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (sent)
            MPI_Recv(data, COUNT, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return 0;
}
