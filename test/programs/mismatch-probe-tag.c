/* mpiscope-test
 * ranks: 2
 * expect: deadlock lines 20,26
 * expect: message-mismatch error lines 18,20
 */
/* Rank 1 probes for tag 8 to size its receive, but rank 0 sent tag 7: the probe waits forever. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, count = 0, data[4] = {1, 2, 3, 4};
    MPI_Status status;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        /* tag 7 */
        MPI_Send(data, 4, MPI_INT, 1, 7, MPI_COMM_WORLD);
    } else if (rank == 1) {
        MPI_Probe(0, 8, MPI_COMM_WORLD, &status);
        MPI_Get_count(&status, MPI_INT, &count);
        MPI_Recv(data, count, MPI_INT, 0, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }

    /* Rank 0 waits here for rank 1, which never comes. */
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
