/* mpiscope-test
 * ranks: 2
 * expect: send-buffer-modified lines 24
 * expect: send-buffer-modified lines 24
 */
/* A pending subarray send (a 128x256 block of a 256x512 matrix) whose block is written before its Waitall; a
 * write outside the block, which the message does not read, is legal and not reported. */
#include <mpi.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int peer = 1 - rank;
    double *buf = calloc(256 * 512, sizeof *buf), *in = calloc(128 * 256, sizeof *in);
    MPI_Request r[2];
    MPI_Datatype s;
    int sizes[2] = { 256, 512 }, subs[2] = { 128, 256 }, starts[2] = { 64, 128 };
    MPI_Type_create_subarray(2, sizes, subs, starts, MPI_ORDER_C, MPI_DOUBLE, &s);
    MPI_Type_commit(&s);
    MPI_Irecv(in, 128 * 256, MPI_DOUBLE, peer, 0, MPI_COMM_WORLD, &r[0]);
    MPI_Isend(buf, 1, s, peer, 0, MPI_COMM_WORLD, &r[1]);
    buf[100 * 512 + 200] = 1; /* row 100, column 200: inside the block */
    buf[10 * 512 + 10] = 1;   /* outside it: legal */
    MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
    MPI_Type_free(&s);
    MPI_Finalize();
    free(buf);
    free(in);
    return 0;
}
