/* mpiscope-test
 * ranks: 2
 * expect: potential-deadlock warning lines 18,22
 */
/* The root scatters and then receives a reply from rank 1; rank 1 sends its reply before it joins the scatter.
 * The root of MPI_Scatter may return once its blocks are on their way and MPI buffers the small reply, so the
 * run completes; without either, rank 0 waits in MPI_Scatter for rank 1, which waits in MPI_Send for the
 * receive rank 0 posts only after the scatter. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, blocks[2] = {10, 20}, mine = 0, reply = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Scatter(blocks, 1, MPI_INT, &mine, 1, MPI_INT, 0, MPI_COMM_WORLD);
        MPI_Recv(&reply, 1, MPI_INT, 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
        reply = 99;
        MPI_Send(&reply, 1, MPI_INT, 0, 3, MPI_COMM_WORLD);
        MPI_Scatter(blocks, 1, MPI_INT, &mine, 1, MPI_INT, 0, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
