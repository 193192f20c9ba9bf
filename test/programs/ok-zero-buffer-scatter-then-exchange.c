/* mpiscope-test
 * ranks: 2
 * expect: none
 */
/* The correct twin of potential-deadlock-scatter-root-recv.c: both ranks join the scatter first, then rank 1
 * sends its reply, which rank 0 receives. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, blocks[2] = {10, 20}, mine = 0, reply = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Scatter(blocks, 1, MPI_INT, &mine, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        MPI_Recv(&reply, 1, MPI_INT, 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
        reply = mine + 1;
        MPI_Send(&reply, 1, MPI_INT, 0, 3, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
