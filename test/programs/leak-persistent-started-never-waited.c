/* mpiscope-test
 * ranks: 2
 * expect: resource-leak lines 19
 */
/* Rank 0 sends with a persistent request: it starts it twice and waits only for the first round, so the
 * second send is still active (never completed by MPI_Wait or MPI_Test) and the request never freed at
 * MPI_Finalize. The small message is delivered anyway; a larger one may never be. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, v = 3;
    MPI_Request req;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        v = 11;
        MPI_Send_init(&v, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, &req);
        MPI_Start(&req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        MPI_Start(&req);
    } else {
        MPI_Recv(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
