/* mpiscope-test
 * ranks: 2
 * expect: request-misuse warning lines 21
 */
/* Rank 1 starts a persistent receive and frees its request while it is still active: the receive still
 * happens, but the program can never know when its buffer holds the message (it reads it after the barrier,
 * which MPI does not promise). Wait for it, then free it. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, v = 0;
    MPI_Request req;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 1) {
        MPI_Recv_init(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, &req);
        MPI_Start(&req);
        MPI_Request_free(&req);
    } else {
        v = 4;
        MPI_Send(&v, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1 && v != 4 && v != 0)
        printf("unexpected %d\n", v);
    MPI_Finalize();
    return 0;
}
