/* mpiscope-test
 * ranks: 2
 * expect: send-buffer-modified lines 25
 * expect: send-buffer-modified lines 28
 */
/* Rank 0 changes one double in the middle of a 1 MiB message whose send is still pending, then the last
 * double of another. The shim sums large messages in vector blocks of 64 bytes and the rest (here the
 * last 24 bytes) word by word: a single changed word must change the sum wherever it lies. The third send
 * is followed by a write just past the end of its message, which is legal and must not be reported. */
#include <mpi.h>
#include <stdlib.h>

#define N (128 * 1024 + 3) /* doubles: 1 MiB and 24 bytes, so the message ends in a partial block */

int main(int argc, char **argv)
{
    int rank;
    double *data = calloc(N + 8, sizeof *data);
    MPI_Request req;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        for (int i = 0; i < N; i++) data[i] = i;
        MPI_Isend(data, N, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD, &req);
        data[N / 2 + 1] = -1.0; /* too early: the send owns the buffer until MPI_Wait returns */
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        MPI_Isend(data, N, MPI_DOUBLE, 1, 1, MPI_COMM_WORLD, &req);
        data[N - 1] = -1.0; /* the last word, in the partial block */
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        MPI_Isend(data, N, MPI_DOUBLE, 1, 2, MPI_COMM_WORLD, &req);
        data[N] = -1.0; /* past the message: not the send's */
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    } else {
        for (int tag = 0; tag < 3; tag++)
            MPI_Recv(data, N, MPI_DOUBLE, 0, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    free(data);
    return 0;
}
