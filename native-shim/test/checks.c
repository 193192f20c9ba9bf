/* Shim checks that need a pending send or a completing request, one per argv[1], on 2 ranks (run-checks.sh
 * says what each must produce):
 *   persistent   a persistent send's buffer written between MPI_Start and MPI_Wait      → send-buffer-modified
 *   vector-data  a vector send's element written while pending                          → send-buffer-modified
 *   vector-gap   a byte between a vector send's blocks written while pending (legal)    → nothing
 *   subarray     an element inside a pending subarray send written                     → send-buffer-modified
 *   small        a small Isend (completed at once by MPI: a shared request) then written   → send-buffer-modified
 *   idup         MPI_Comm_idup completed by MPI_Wait                                    → a COMM record for it
 *   bsend-fits   MPI_Bsend with enough attached space                                   → nothing
 * Messages are large (rendezvous) so that a send stays pending until its Wait, under both MPIs, except in
 * small. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N (1 << 16)

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "persistent";
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int peer = 1 - rank;
    double *buf = calloc(2 * N, sizeof *buf), *in = calloc(2 * N, sizeof *in);
    MPI_Request r[2];
    if (!strcmp(mode, "persistent")) {
        MPI_Send_init(buf, N, MPI_DOUBLE, peer, 0, MPI_COMM_WORLD, &r[1]);
        for (int round = 0; round < 2; round++) {
            MPI_Irecv(in, N, MPI_DOUBLE, peer, 0, MPI_COMM_WORLD, &r[0]);
            MPI_Start(&r[1]);
            if (round == 1) buf[5] = 1; /* the bug, in the second round only */
            MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
        }
        MPI_Request_free(&r[1]);
    } else if (!strcmp(mode, "vector-data") || !strcmp(mode, "vector-gap")) {
        MPI_Datatype v;
        MPI_Type_vector(N, 1, 2, MPI_DOUBLE, &v); /* every other double */
        MPI_Type_commit(&v);
        MPI_Irecv(in, N, MPI_DOUBLE, peer, 0, MPI_COMM_WORLD, &r[0]);
        MPI_Isend(buf, 1, v, peer, 0, MPI_COMM_WORLD, &r[1]);
        buf[!strcmp(mode, "vector-data") ? 10 : 11] = 1;
        MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
        MPI_Type_free(&v);
    } else if (!strcmp(mode, "subarray")) {
        MPI_Datatype s;
        int sizes[2] = { 256, 512 }, subs[2] = { 128, 256 }, starts[2] = { 64, 128 };
        MPI_Type_create_subarray(2, sizes, subs, starts, MPI_ORDER_C, MPI_DOUBLE, &s);
        MPI_Type_commit(&s);
        MPI_Irecv(in, 128 * 256, MPI_DOUBLE, peer, 0, MPI_COMM_WORLD, &r[0]);
        MPI_Isend(buf, 1, s, peer, 0, MPI_COMM_WORLD, &r[1]);
        buf[100 * 512 + 200] = 1; /* row 100, column 200: inside the subarray */
        buf[10 * 512 + 10] = 1;   /* outside it: legal */
        MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
        MPI_Type_free(&s);
    } else if (!strcmp(mode, "small")) {
        MPI_Irecv(in, 4, MPI_DOUBLE, peer, 5, MPI_COMM_WORLD, &r[0]);
        MPI_Isend(buf, 4, MPI_DOUBLE, peer, 5, MPI_COMM_WORLD, &r[1]);
        buf[0] = 1;
        MPI_Wait(&r[1], MPI_STATUS_IGNORE);
        MPI_Wait(&r[0], MPI_STATUS_IGNORE);
    } else if (!strcmp(mode, "idup")) {
        MPI_Comm dup;
        MPI_Comm_idup(MPI_COMM_WORLD, &dup, &r[0]);
        MPI_Wait(&r[0], MPI_STATUS_IGNORE);
        MPI_Sendrecv(buf, 1, MPI_DOUBLE, peer, 3, in, 1, MPI_DOUBLE, peer, 3, dup, MPI_STATUS_IGNORE);
        MPI_Comm_free(&dup);
    } else if (!strcmp(mode, "bsend-fits")) {
        int size = 0;
        MPI_Pack_size(100, MPI_DOUBLE, MPI_COMM_WORLD, &size);
        size += MPI_BSEND_OVERHEAD;
        void *space = malloc(size);
        MPI_Buffer_attach(space, size);
        MPI_Bsend(buf, 100, MPI_DOUBLE, peer, 4, MPI_COMM_WORLD);
        MPI_Recv(in, 100, MPI_DOUBLE, peer, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Buffer_detach(&space, &size);
        free(space);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    free(buf);
    free(in);
    return 0;
}
