/* mpiscope-test
 * ranks: 2
 * expect: none
 */
/* Stack buffers that are exactly big enough, in every shape the stack-buffer check must leave alone: a whole
 * array, a pointer into the middle of one, a struct and one of its members, a buffer of main passed down to a
 * helper (it lies in main's frame, not the helper's), a variable-length array, a derived type whose extent
 * fills the array, nonblocking calls, collectives (in place too), and a heap buffer. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

struct pair {
    int head;
    int tail[4];
};

static void send_from(int *p, int n, int peer)
{
    int local[2] = {7, 8};
    MPI_Send(p, n, MPI_INT, peer, 1, MPI_COMM_WORLD);
    MPI_Send(local, 2, MPI_INT, peer, 2, MPI_COMM_WORLD);
}

static void recv_into(int *p, int n, int peer)
{
    int local[2];
    MPI_Recv(p, n, MPI_INT, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Recv(local, 2, MPI_INT, peer, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

int main(int argc, char **argv)
{
    int rank, size, peer, n = 6;
    int ten[10] = {0}, got[10];
    struct pair s = {1, {2, 3, 4, 5}};
    double d = 1.0, sum = 0.0, all[2];
    MPI_Datatype two;
    MPI_Request reqs[2];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    peer = 1 - rank;
    int vla[n];
    for (int i = 0; i < n; i++) vla[i] = i;
    int *heap = malloc(16 * sizeof(int));
    MPI_Type_contiguous(5, MPI_INT, &two);
    MPI_Type_commit(&two);

    if (rank == 0) {
        MPI_Send(ten, 10, MPI_INT, peer, 0, MPI_COMM_WORLD);
        MPI_Send(&ten[6], 4, MPI_INT, peer, 0, MPI_COMM_WORLD);
        MPI_Send(&s, 5, MPI_INT, peer, 0, MPI_COMM_WORLD);
        MPI_Send(s.tail, 4, MPI_INT, peer, 0, MPI_COMM_WORLD);
        MPI_Send(vla, n, MPI_INT, peer, 0, MPI_COMM_WORLD);
        MPI_Send(ten, 2, two, peer, 0, MPI_COMM_WORLD);
        MPI_Send(heap, 16, MPI_INT, peer, 0, MPI_COMM_WORLD);
        send_from(ten, 10, peer);
    } else {
        MPI_Recv(ten, 10, MPI_INT, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(&ten[6], 4, MPI_INT, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(&s, 5, MPI_INT, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(s.tail, 4, MPI_INT, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(vla, n, MPI_INT, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(ten, 2, two, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(heap, 16, MPI_INT, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        recv_into(ten, 10, peer);
    }
    for (int i = 0; i < 3; i++) {
        MPI_Irecv(&ten[5], 5, MPI_INT, peer, 3, MPI_COMM_WORLD, &reqs[0]);
        MPI_Isend(ten, 5, MPI_INT, peer, 3, MPI_COMM_WORLD, &reqs[1]);
        MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
    }
    MPI_Bcast(ten, 10, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Allreduce(&d, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Gather(&d, 1, MPI_DOUBLE, all, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    MPI_Scatter(all, 1, MPI_DOUBLE, &d, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all, 1, MPI_DOUBLE, MPI_COMM_WORLD);
    MPI_Alltoall(ten, 5, MPI_INT, got, 5, MPI_INT, MPI_COMM_WORLD);
    MPI_Reduce(rank == 0 ? MPI_IN_PLACE : &d, rank == 0 ? &d : NULL, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) printf("sum %g, ten[9] %d, got[9] %d, size %d\n", sum, ten[9], got[9], size);
    MPI_Type_free(&two);
    free(heap);
    MPI_Finalize();
    return 0;
}
