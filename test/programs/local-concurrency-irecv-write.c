/* mpiscope-test
 * ranks: 2
 * mode: memcheck
 * expect: local-concurrency lines 20,22
 */
/* Rank 0 clears the receive buffer after posting the receive, instead of before: the message may land first and
 * be wiped, or land after and survive. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank;
    double halo[8];
    MPI_Request req;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Irecv(halo, 8, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD, &req);
        for (int i = 0; i < 8; i++)
            halo[i] = 0.0;
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        printf("%g\n", halo[7]);
    } else {
        double msg[8] = {1, 2, 3, 4, 5, 6, 7, 8};
        MPI_Send(msg, 8, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
