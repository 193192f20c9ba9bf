/* mpiscope-test
 * ranks: 2
 * expect: call-order lines 14
 */
/* The program returns from main without MPI_Finalize on every rank. The finding points at
 * MPI_Init, the one call the missing MPI_Finalize pairs with. Under plain mpirun Open MPI reports
 * the job as failed (exit 1) while MPICH exits 0. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, sum;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    return 0;
}
