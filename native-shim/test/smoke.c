/* Exercises the shim's record paths on 2 ranks: point-to-point (blocking, nonblocking, wildcard),
 * collectives, communicator and datatype creation, statuses ignored. Used by run-smoke.sh. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    int rank, size, buf[64], in[64];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int peer = (rank + 1) % size;
    for (int i = 0; i < 64; i++) buf[i] = rank * 100 + i;

    for (int it = 0; it < 10; it++) {
        if (rank == 0) {
            MPI_Send(buf, 8, MPI_INT, peer, it, MPI_COMM_WORLD);
            MPI_Recv(in, 8, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Status st;
            MPI_Recv(in, 8, MPI_INT, 0, it, MPI_COMM_WORLD, &st);
            MPI_Send(buf, 8, MPI_INT, 0, it, MPI_COMM_WORLD);
        }
    }
    MPI_Request rq[2];
    MPI_Irecv(in, 16, MPI_INT, peer, 7, MPI_COMM_WORLD, &rq[0]);
    MPI_Isend(buf, 16, MPI_INT, peer, 7, MPI_COMM_WORLD, &rq[1]);
    MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);

    MPI_Sendrecv(buf, 4, MPI_INT, peer, 1, in, 4, MPI_INT, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Bcast(buf, 4, MPI_INT, 0, MPI_COMM_WORLD);
    int sum = 0;
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    int counts[2] = { 1, 1 }, displs[2] = { 0, 1 };
    MPI_Allgatherv(&rank, 1, MPI_INT, in, counts, displs, MPI_INT, MPI_COMM_WORLD);

    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    MPI_Barrier(half);
    MPI_Comm_free(&half);

    MPI_Datatype vec, st;
    MPI_Type_vector(4, 2, 4, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    int bl[2] = { 1, 3 };
    MPI_Aint dis[2] = { 0, 8 };
    MPI_Datatype tys[2] = { MPI_INT, MPI_DOUBLE };
    MPI_Type_create_struct(2, bl, dis, tys, &st);
    MPI_Type_commit(&st);
    MPI_Type_free(&st);
    MPI_Type_free(&vec);

    MPI_Request r;
    MPI_Ibarrier(MPI_COMM_WORLD, &r);
    int idx;
    MPI_Waitany(1, &r, &idx, MPI_STATUS_IGNORE);
    MPI_Finalize();
    if (rank == 0) printf("smoke ok\n");
    return 0;
}
