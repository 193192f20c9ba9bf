/* mpiscope-test
 * ranks: 2
 * expect: unmatched-message lines 18
 * expect: resource-leak lines 18
 */
/* Rank 1 posts a receive that nobody ever sends to, and never waits for it. At MPI_Finalize the
 * receive is still unsatisfied (unmatched-message) and its request was never freed (resource-leak). */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, value = 0;
    MPI_Request req;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 1)
        MPI_Irecv(&value, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, &req);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
