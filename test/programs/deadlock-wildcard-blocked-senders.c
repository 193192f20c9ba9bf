/* mpiscope-test
 * ranks: 3
 * expect: deadlock lines 17,21
 */
/* Rank 0 waits for a message from anybody, but both possible senders first wait for rank 0:
 * the wildcard receive is an OR over ranks 1 and 2, and both of them are blocked. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, size, value = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank == 0) {
        MPI_Recv(&value, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (int dest = 1; dest < size; dest++)
            MPI_Send(&value, 1, MPI_INT, dest, 0, MPI_COMM_WORLD);
    } else {
        MPI_Recv(&value, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(&rank, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
