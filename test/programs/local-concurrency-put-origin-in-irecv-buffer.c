/* mpiscope-test
 * ranks: 2
 * mode: memcheck
 * expect: local-concurrency lines 21,22
 */
/* Rank 1 puts from a buffer that a pending receive is still filling: the Put may send what was there before, the
 * message, or a mixture. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, *base, buf[4] = {0};
    MPI_Win win;
    MPI_Request req;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_allocate(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    MPI_Win_fence(0, win);
    if (rank == 1) {
        MPI_Irecv(buf, 4, MPI_INT, 0, 0, MPI_COMM_WORLD, &req);
        MPI_Put(buf, 4, MPI_INT, 0, 0, 4, MPI_INT, win);
    } else {
        int msg[4] = {4, 3, 2, 1};
        MPI_Send(msg, 4, MPI_INT, 1, 0, MPI_COMM_WORLD);
    }
    MPI_Win_fence(0, win);
    if (rank == 1)
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
