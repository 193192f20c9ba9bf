/* mpiscope-test
 * ranks: 2
 * expect: deadlock lines 17,21
 */
/* Rank 0 expects two messages but rank 1 sends one and finalizes: the second receive can
 * never be satisfied, and rank 1 waits in MPI_Finalize (collective over all processes). */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, first = 1, second = 2;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 1) {
        MPI_Send(&first, 1, MPI_INT, 0, 1, MPI_COMM_WORLD);
        MPI_Finalize();
        return 0;
    }
    MPI_Recv(&first, 1, MPI_INT, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Recv(&second, 1, MPI_INT, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Finalize();
    return 0;
}
