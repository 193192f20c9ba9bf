/* mpiscope-test
 * ranks: 2
 * expect: message-mismatch warning lines 19,21
 * expect: resource-leak lines 21
 */
/* Rank 0 sends tag 1; rank 1 posts its receive with tag 2 and never waits for it. Nothing hangs:
 * at MPI_Finalize the message was never received and the receive never satisfied, and the two
 * differ only by their tag. (The request never completed is also a leak.) */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, value = 3;
    MPI_Request req;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        MPI_Send(&value, 1, MPI_INT, 1, 1, MPI_COMM_WORLD);
    else if (rank == 1)
        MPI_Irecv(&value, 1, MPI_INT, 0, 2, MPI_COMM_WORLD, &req);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
