/* mpiscope-test
 * ranks: 3
 * expect: buffer-overlap lines 24,26
 */
/* Rank 0 sends its array to rank 1 with MPI_Isend, frees the request instead of waiting for it, and
 * receives rank 2's array into the same memory. Nothing tells rank 0 that rank 1 has the data: MPI may
 * still be reading the array (a large message waits for rank 1's receive) when rank 2's data
 * overwrites it, and rank 1 gets a mix. Fix: MPI_Wait for the send before reusing the array, or
 * receive rank 2's data into another buffer. */
#include <mpi.h>

#define N 1000

int main(int argc, char **argv)
{
    int rank, data[N];
    MPI_Request req;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int i = 0; i < N; i++)
        data[i] = rank;
    if (rank == 0) {
        MPI_Isend(data, N, MPI_INT, 1, 0, MPI_COMM_WORLD, &req);
        MPI_Request_free(&req);
        MPI_Recv(data, N, MPI_INT, 2, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (rank == 1) {
        MPI_Recv(data, N, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
        MPI_Send(data, N, MPI_INT, 0, 0, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
