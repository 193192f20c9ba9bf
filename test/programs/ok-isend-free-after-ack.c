/* mpiscope-test
 * ranks: 3
 * expect: none
 */
/* Rank 0 sends its array to rank 1 with MPI_Isend and frees the request, as MPI allows for a send:
 * it learns that the message arrived from rank 1's acknowledgement, which rank 1 sends only after its
 * receive completed. Only then does rank 0 receive rank 2's array into the same memory. */
#include <mpi.h>

#define N 1000

int main(int argc, char **argv)
{
    int rank, ack = 0, data[N];
    MPI_Request req;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int i = 0; i < N; i++)
        data[i] = rank;
    if (rank == 0) {
        MPI_Isend(data, N, MPI_INT, 1, 0, MPI_COMM_WORLD, &req);
        MPI_Request_free(&req);
        MPI_Recv(&ack, 1, MPI_INT, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(data, N, MPI_INT, 2, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (rank == 1) {
        MPI_Recv(data, N, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(&ack, 1, MPI_INT, 0, 1, MPI_COMM_WORLD);
    } else {
        MPI_Send(data, N, MPI_INT, 0, 0, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
