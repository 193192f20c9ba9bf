/* mpiscope-test
 * ranks: 3
 * expect: resource-leak lines 16
 */
/* Every rank duplicates MPI_COMM_WORLD, uses the copy, and never frees it: one leak, reported
 * once at the creating call with a location on each rank. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, sum;
    MPI_Comm private_world;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_dup(MPI_COMM_WORLD, &private_world);
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, private_world);
    MPI_Finalize();
    return 0;
}
