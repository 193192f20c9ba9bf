/* mpiscope-test
 * ranks: 3
 * mode: memcheck
 * expect: local-concurrency lines 19,21
 */
/* The root of a nonblocking broadcast prepares the next value in the buffer it is still broadcasting. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, params[4] = {0};
    MPI_Request req;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        for (int i = 0; i < 4; i++)
            params[i] = i + 10;
    MPI_Ibcast(params, 4, MPI_INT, 0, MPI_COMM_WORLD, &req);
    if (rank == 0)
        params[3] = 0;
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Finalize();
    return 0;
}
