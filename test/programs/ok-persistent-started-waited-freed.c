/* mpiscope-test
 * ranks: 2
 * expect: none
 */
/* The correct twin of leak-persistent-started-never-waited.c: every start is completed by MPI_Wait and the
 * request is freed once inactive. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, v = 3, round;
    MPI_Request req;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Send_init(&v, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, &req);
        for (round = 0; round < 2; round++) {
            v = 11 + round;
            MPI_Start(&req);
            MPI_Wait(&req, MPI_STATUS_IGNORE);
        }
        MPI_Request_free(&req);
    } else {
        MPI_Recv(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
