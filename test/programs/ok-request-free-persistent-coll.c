/* mpiscope-test
 * ranks: 2
 * expect: none
 */
/* Every rank completes its nonblocking collectives with MPI_Wait, then frees an inactive persistent send request
 * and waits on a request that MPI_Wait already set to MPI_REQUEST_NULL: all legal. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, size, v = 1, sum = 0, buf = 0;
    MPI_Request req, preq;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Iallreduce(&v, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Ibarrier(MPI_COMM_WORLD, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Send_init(&v, 1, MPI_INT, (rank + 1) % size, 0, MPI_COMM_WORLD, &preq);
    MPI_Start(&preq);
    MPI_Recv(&buf, 1, MPI_INT, (rank + size - 1) % size, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Wait(&preq, MPI_STATUS_IGNORE);
    MPI_Request_free(&preq);
    MPI_Finalize();
    return 0;
}
