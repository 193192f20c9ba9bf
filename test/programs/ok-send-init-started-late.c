/* mpiscope-test
 * ranks: 2
 * expect: none
 */
/* A persistent send waited on before its first MPI_Start (legal: MPI_Wait on an inactive persistent
 * request returns at once), then started and received: no request-misuse, no deadlock. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, out = 1, in = 0;
    MPI_Request send;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Send_init(&out, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, &send);
        MPI_Wait(&send, MPI_STATUS_IGNORE);
        MPI_Start(&send);
        MPI_Wait(&send, MPI_STATUS_IGNORE);
        MPI_Request_free(&send);
    } else if (rank == 1) {
        MPI_Recv(&in, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return 0;
}
