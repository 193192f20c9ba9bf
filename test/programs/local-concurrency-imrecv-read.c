/* mpiscope-test
 * ranks: 2
 * mode: memcheck
 * expect: local-concurrency lines 20,21
 */
/* A matched probe, then a nonblocking receive of that message whose buffer is read before the Wait. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, buf[8] = {0};

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Message msg;
        MPI_Request req;
        MPI_Mprobe(1, 3, MPI_COMM_WORLD, &msg, MPI_STATUS_IGNORE);
        MPI_Imrecv(buf, 8, MPI_INT, &msg, &req);
        printf("first %d\n", buf[0]);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    } else {
        int out[8] = {7, 7, 7, 7, 7, 7, 7, 7};
        MPI_Send(out, 8, MPI_INT, 0, 3, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
