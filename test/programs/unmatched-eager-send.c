/* mpiscope-test
 * ranks: 2
 * expect: unmatched-message lines 17
 */
/* Rank 0 sends a small message that rank 1 never receives. The send completes at once because
 * the library buffers it, and both ranks finalize normally, so nothing hangs: the message is
 * simply lost. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, value = 5;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        MPI_Send(&value, 1, MPI_INT, 1, 99, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
