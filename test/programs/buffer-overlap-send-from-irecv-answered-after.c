/* mpiscope-test
 * ranks: 3
 * expect: buffer-overlap warning lines 26,27,40
 */
/* A combine up a tree with the answer sent back down, as ScaLAPACK's BLACS do it: each leaf posts the receive of
 * the answer into its buffer, then sends its contribution from that same buffer to the root. MPI forbids reading
 * a pending receive's buffer, but the root sends the answer only after it has every contribution, so the answer
 * cannot arrive while a leaf's send still reads: a warning, not a timing-dependent error. Leaf 2's contribution
 * reaches the root through leaf 1 (a tree), so the order is known only through leaf 1. */
#include <mpi.h>

#define N 4

int main(int argc, char **argv)
{
    int rank, i;
    double buf[N], in[N];
    MPI_Request answer;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (i = 0; i < N; i++)
        buf[i] = rank + i;
    if (rank == 2) {
        /* the leaf: contribution to its parent, rank 1; the answer from anyone */
        MPI_Irecv(buf, N, MPI_DOUBLE, MPI_ANY_SOURCE, 9, MPI_COMM_WORLD, &answer);
        MPI_Send(buf, N, MPI_DOUBLE, 1, 1, MPI_COMM_WORLD);
        MPI_Wait(&answer, MPI_STATUS_IGNORE);
    } else if (rank == 1) {
        MPI_Recv(in, N, MPI_DOUBLE, 2, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (i = 0; i < N; i++)
            buf[i] += in[i];
        MPI_Send(buf, N, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD);
        MPI_Recv(buf, N, MPI_DOUBLE, 0, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
        MPI_Recv(in, N, MPI_DOUBLE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (i = 0; i < N; i++)
            buf[i] += in[i];
        MPI_Send(buf, N, MPI_DOUBLE, 1, 9, MPI_COMM_WORLD);
        MPI_Send(buf, N, MPI_DOUBLE, 2, 9, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
