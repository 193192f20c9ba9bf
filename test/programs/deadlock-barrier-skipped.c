/* mpiscope-test
 * ranks: 3
 * expect: deadlock lines 15,18
 */
/* Rank 2 skips the barrier and finalizes; ranks 0 and 1 wait in the barrier for it forever. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 2) {
        MPI_Finalize();
        return 0;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
