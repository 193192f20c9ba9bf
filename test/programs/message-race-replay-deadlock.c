/* mpiscope-test
 * ranks: 3
 * expect: message-race lines 22,26,29
 * replay: 0.1.2 deadlock
 */
/* Rank 0 takes one message from any rank, then one from rank 2. Rank 2 sends late, so the run's
 * wildcard receive takes rank 1's message and all ends well; had rank 2's message come first, the
 * receive from rank 2 would wait forever (rank 1's message is not for it): a deadlock that
 * mpiscope run --replay-race 0.1.2 shows without waiting for the unlucky timing. */
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int rank, a = 0, b = 0, value;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    value = rank * 10;
    if (rank == 0) {
        MPI_Recv(&a, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(&b, 1, MPI_INT, 2, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        printf("a = %d, b = %d\n", a, b);
    } else if (rank == 1) {
        MPI_Send(&value, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    } else if (rank == 2) {
        usleep(500000);
        MPI_Send(&value, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
