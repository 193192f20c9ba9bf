/* mpiscope-test
 * ranks: 3
 * expect: message-race lines 21,25,28
 * replay: 0.1.2 mismatch
 */
/* Rank 0 takes a one-int message and then a four-int message, each from any rank. Rank 2's four ints
 * come late, so the run works; had they come first, the one-int receive would truncate them
 * (MPI_ERR_TRUNCATE). The engine decides that from the recorded calls and says so on the race; the
 * replay (mpiscope run --replay-race 0.1.2) shows it happen. */
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int rank, a = 0, b[4] = {0}, values[4] = {1, 2, 3, 4};

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Recv(&a, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(b, 4, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        printf("a = %d, b[3] = %d\n", a, b[3]);
    } else if (rank == 1) {
        MPI_Send(values, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    } else if (rank == 2) {
        usleep(500000);
        MPI_Send(values, 4, MPI_INT, 0, 0, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
