/* mpiscope-test
 * ranks: 2
 * expect: send-buffer-modified lines 32
 * expect: send-buffer-modified lines 32
 * expect: send-buffer-modified lines 35
 * expect: send-buffer-modified lines 35
 */
/* A pending vector send of 512 KiB (every other double of a 1 MiB buffer), above the size the shim sums whole
 * (MPISCOPE_CHECKSUM_EXACT_BYTES, 256 KiB by default): it sums the message's first and last 4 KiB and 64-byte
 * windows spread evenly in between, counted in message bytes, not buffer bytes. Round 0 writes the element at
 * the middle of the message (buffer double N, message byte 256 Ki: a window starts there), round 1 the last
 * element; round 2 writes only the holes next to them, which the message does not read: legal. */
#include <mpi.h>
#include <stdlib.h>

#define N (1 << 16)

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int peer = 1 - rank;
    double *buf = calloc(2 * N, sizeof *buf), *in = calloc(N, sizeof *in);
    MPI_Request r[2];
    MPI_Datatype v;
    MPI_Type_vector(N, 1, 2, MPI_DOUBLE, &v);
    MPI_Type_commit(&v);
    for (int round = 0; round < 3; round++) {
        MPI_Irecv(in, N, MPI_DOUBLE, peer, round, MPI_COMM_WORLD, &r[0]);
        if (round == 0) {
            MPI_Isend(buf, 1, v, peer, round, MPI_COMM_WORLD, &r[1]);
            buf[N] = 1; /* element N / 2 of the vector, the middle of the message */
        } else if (round == 1) {
            MPI_Isend(buf, 1, v, peer, round, MPI_COMM_WORLD, &r[1]);
            buf[2 * N - 2] = 1; /* the last element */
        } else {
            MPI_Isend(buf, 1, v, peer, round, MPI_COMM_WORLD, &r[1]);
            buf[N + 1] = buf[2 * N - 1] = buf[1] = 1; /* holes: not the message's */
        }
        MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
    }
    MPI_Type_free(&v);
    MPI_Finalize();
    free(buf);
    free(in);
    return 0;
}
