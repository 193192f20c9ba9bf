/* mpiscope-test
 * ranks: 3
 * expect: potential-deadlock warning lines 19,22
 */
/* Ranks 1 and 2 contribute to a gather at rank 0 and then rank 1 waits for a reply, but rank 0 sends that
 * reply before it joins the gather. MPI buffers the small reply, so the run completes; without buffering rank 0
 * waits in MPI_Send for rank 1, which waits in MPI_Gather (rank 2 too) for rank 0. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, v, all[3] = {0, 0, 0}, reply = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    v = rank * rank;
    if (rank == 0) {
        reply = 42;
        MPI_Send(&reply, 1, MPI_INT, 1, 6, MPI_COMM_WORLD);
        MPI_Gather(&v, 1, MPI_INT, all, 1, MPI_INT, 0, MPI_COMM_WORLD);
    } else {
        MPI_Gather(&v, 1, MPI_INT, all, 1, MPI_INT, 0, MPI_COMM_WORLD);
        if (rank == 1)
            MPI_Recv(&reply, 1, MPI_INT, 0, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return 0;
}
