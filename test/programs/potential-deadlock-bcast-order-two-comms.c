/* mpiscope-test
 * ranks: 2
 * expect: potential-deadlock warning lines 23,24
 */
/* Rank 0 broadcasts on MPI_COMM_WORLD and then on a duplicate of it; rank 1 joins the duplicate's broadcast
 * first. The root of MPI_Bcast may return once its data is on its way, so the run completes; where a
 * broadcast synchronizes, rank 0 waits on MPI_COMM_WORLD for rank 1, which waits on the duplicate for rank 0.
 * Collectives must be called in the same order on every rank, across communicators too. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, a = 0, b = 0;
    MPI_Comm dup;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    if (rank == 0) {
        a = 1;
        b = 2;
    }
    if (rank == 0) MPI_Bcast(&a, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Bcast(&b, 1, MPI_INT, 0, dup);
    if (rank != 0) MPI_Bcast(&a, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Comm_free(&dup);
    MPI_Finalize();
    return 0;
}
