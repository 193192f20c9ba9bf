/* mpiscope-test
 * ranks: 2
 * mode: memcheck
 * expect: local-concurrency lines 20,21
 */
/* A persistent send re-started each iteration; the next value is written into the buffer right after MPI_Start
 * instead of after MPI_Wait. The finding names the Start that made the send pending. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, v[2] = {0, 0};
    MPI_Request req;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Send_init(v, 2, MPI_INT, 1, 0, MPI_COMM_WORLD, &req);
        for (int it = 0; it < 5; it++) {
            MPI_Start(&req);
            v[1] = it + 1;
            MPI_Wait(&req, MPI_STATUS_IGNORE);
        }
        MPI_Request_free(&req);
    } else {
        for (int it = 0; it < 5; it++)
            MPI_Recv(v, 2, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return 0;
}
