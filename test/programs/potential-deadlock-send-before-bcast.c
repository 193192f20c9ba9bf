/* mpiscope-test
 * ranks: 2
 * expect: potential-deadlock lines 20,23
 */
/* Rank 0 sends a token to rank 1 and then joins a broadcast that rank 1 roots; rank 1 broadcasts first
 * and receives the token after. The MPI standard's own example of an erroneous program: it deadlocks when
 * the send is not buffered and the broadcast synchronizes. It completes here only because the library
 * buffers the small send (HPC Challenge's latency benchmark does this with an empty message). */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, token = 7, value = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 1)
        value = 42;
    if (rank == 0) {
        MPI_Send(&token, 1, MPI_INT, 1, 102, MPI_COMM_WORLD);
        MPI_Bcast(&value, 1, MPI_INT, 1, MPI_COMM_WORLD);
    } else {
        MPI_Bcast(&value, 1, MPI_INT, 1, MPI_COMM_WORLD);
        MPI_Recv(&token, 1, MPI_INT, 0, 102, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return 0;
}
