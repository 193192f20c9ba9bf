/* mpiscope-test
 * ranks: 2
 * expect: deadlock lines 25,28
 */
/* Rank 0 sends rank 1 a buffered message and detaches the buffer at once; MPI_Buffer_detach waits until
 * every buffered message has been delivered. Rank 1 receives only after a barrier that rank 0 never
 * reaches. The message is large (4 MB) so that neither MPI has delivered it eagerly before rank 1
 * receives: both hang. Fix: detach after the barrier, or receive before it. */
#include <mpi.h>
#include <stdlib.h>

#define N 1000000

int main(int argc, char **argv)
{
    int rank, size;
    int *data = calloc(N, sizeof(int));

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        char *buf = malloc(N * sizeof(int) + MPI_BSEND_OVERHEAD);
        MPI_Buffer_attach(buf, N * (int)sizeof(int) + MPI_BSEND_OVERHEAD);
        MPI_Bsend(data, N, MPI_INT, 1, 0, MPI_COMM_WORLD);
        MPI_Buffer_detach(&buf, &size);
        free(buf);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1) MPI_Recv(data, N, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    free(data);
    MPI_Finalize();
    return 0;
}
