/* mpiscope-test
 * ranks: 2
 * mode: memcheck
 * expect: local-concurrency lines 21,22
 */
/* A persistent receive is started and its buffer summed before the Wait: the sum may include old data. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, buf[4] = {0};
    MPI_Request req;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 1) {
        long sum = 0;
        MPI_Recv_init(buf, 4, MPI_INT, 0, 0, MPI_COMM_WORLD, &req);
        for (int it = 0; it < 3; it++) {
            MPI_Start(&req);
            sum += buf[0];
            MPI_Wait(&req, MPI_STATUS_IGNORE);
        }
        MPI_Request_free(&req);
        printf("%ld\n", sum);
    } else {
        int msg[4] = {1, 2, 3, 4};
        for (int it = 0; it < 3; it++)
            MPI_Send(msg, 4, MPI_INT, 1, 0, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
