/* mpiscope-test
 * ranks: 2
 * mode: memcheck
 * expect: none
 */
/* A persistent send whose buffer is refilled between MPI_Wait and the next MPI_Start: the buffer is the program's
 * while the request is inactive. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, v[8];
    MPI_Request req;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Send_init(v, 8, MPI_INT, 1, 0, MPI_COMM_WORLD, &req);
        for (int it = 0; it < 5; it++) {
            for (int i = 0; i < 8; i++)
                v[i] = it * i;
            MPI_Start(&req);
            MPI_Wait(&req, MPI_STATUS_IGNORE);
        }
        MPI_Request_free(&req);
    } else {
        MPI_Recv_init(v, 8, MPI_INT, 0, 0, MPI_COMM_WORLD, &req);
        for (int it = 0; it < 5; it++) {
            MPI_Start(&req);
            MPI_Wait(&req, MPI_STATUS_IGNORE);
            v[0] += v[7];
        }
        MPI_Request_free(&req);
    }
    MPI_Finalize();
    return 0;
}
