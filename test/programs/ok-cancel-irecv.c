/* mpiscope-test
 * ranks: 2
 * expect: none
 */
/* Rank 1 posts a receive it turns out not to need, cancels it and completes the request. A
 * cancelled receive is neither an unmatched receive nor a leaked request. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, value = 0, cancelled = 0;
    MPI_Request req;
    MPI_Status status;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 1) {
        MPI_Irecv(&value, 1, MPI_INT, 0, 9, MPI_COMM_WORLD, &req);
        MPI_Cancel(&req);
        MPI_Wait(&req, &status);
        MPI_Test_cancelled(&status, &cancelled);
        if (!cancelled)
            printf("the receive was not cancelled\n");
    }
    MPI_Finalize();
    return 0;
}
