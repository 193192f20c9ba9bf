/* mpiscope-test
 * ranks: 2
 * mode: memcheck
 * expect: local-concurrency lines 22,23
 */
/* Rank 1 posts a receive and reads its buffer before waiting for it: the value it reads may be the old one or
 * the message, depending on when the library writes. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, data[4] = {0, 0, 0, 0};
    MPI_Request req;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        int msg[4] = {1, 2, 3, 4};
        MPI_Send(msg, 4, MPI_INT, 1, 0, MPI_COMM_WORLD);
    } else {
        MPI_Irecv(data, 4, MPI_INT, 0, 0, MPI_COMM_WORLD, &req);
        int early = data[2];
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        printf("early %d, then %d\n", early, data[2]);
    }
    MPI_Finalize();
    return 0;
}
