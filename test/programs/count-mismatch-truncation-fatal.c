/* mpiscope-test
 * ranks: 2
 * expect: count-mismatch lines 20,22
 */
/* Rank 0 sends 10 ints, rank 1 receives into room for 5, under the default error handler
 * (MPI_ERRORS_ARE_FATAL): both libraries abort the job inside MPI_Recv, and MPICH's launcher kills the
 * ranks at once. The findings must still say truncation (not a receive that was never satisfied): the
 * shim's handler for fatal errors records the failing call before the job is aborted. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, buf[10];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int i = 0; i < 10; i++) buf[i] = i;
    if (rank == 0) {
        MPI_Send(buf, 10, MPI_INT, 1, 0, MPI_COMM_WORLD);
    } else {
        MPI_Recv(buf, 5, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        printf("received\n");
    }
    MPI_Finalize();
    return 0;
}
