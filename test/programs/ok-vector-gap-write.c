/* mpiscope-test
 * ranks: 2
 * expect: none
 */
/* A double between the blocks of a pending vector send (every other double) written before its Waitall: legal,
 * since the message does not read it; the checksum covers exactly the bytes of the type map, so no finding
 * (send-buffer-modified-vector-element.c writes an element instead). */
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
    MPI_Irecv(in, N, MPI_DOUBLE, peer, 0, MPI_COMM_WORLD, &r[0]);
    MPI_Isend(buf, 1, v, peer, 0, MPI_COMM_WORLD, &r[1]);
    buf[11] = 1; /* between elements 5 and 6: not part of the message, legal */
    MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
    MPI_Type_free(&v);
    MPI_Finalize();
    free(buf);
    free(in);
    return 0;
}
