/* mpiscope-test
 * ranks: 2
 * expect: send-buffer-modified lines 22
 * expect: send-buffer-modified lines 22
 */
/* A persistent send's buffer written between MPI_Start and the Waitall that completes it, in the second round
 * only: the shim sums the buffer at each MPI_Start, not once at MPI_Send_init. The message is large, so the send
 * stays pending until its Waitall under both MPIs. */
#include <mpi.h>
#include <stdlib.h>

#define N (1 << 16)

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int peer = 1 - rank;
    double *buf = calloc(N, sizeof *buf), *in = calloc(N, sizeof *in);
    MPI_Request r[2];
    MPI_Send_init(buf, N, MPI_DOUBLE, peer, 0, MPI_COMM_WORLD, &r[1]);
    for (int round = 0; round < 2; round++) {
        MPI_Irecv(in, N, MPI_DOUBLE, peer, 0, MPI_COMM_WORLD, &r[0]);
        MPI_Start(&r[1]);
        if (round == 1) buf[5] = 1; /* the bug, in the second round only */
        MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
    }
    MPI_Request_free(&r[1]);
    MPI_Finalize();
    free(buf);
    free(in);
    return 0;
}
