/* mpiscope-test
 * ranks: 2
 * expect: deadlock lines 18,21
 */
/* A receive-receive deadlock on a duplicated communicator: the locations and the ring must be
 * reported in terms of the duplicate, whose ranks here equal those of MPI_COMM_WORLD. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, value = 0;
    MPI_Comm dup;

    MPI_Init(&argc, &argv);
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_rank(dup, &rank);
    if (rank == 0) {
        MPI_Recv(&value, 1, MPI_INT, 1, 0, dup, MPI_STATUS_IGNORE);
        MPI_Send(&value, 1, MPI_INT, 1, 0, dup);
    } else {
        MPI_Recv(&value, 1, MPI_INT, 0, 0, dup, MPI_STATUS_IGNORE);
        MPI_Send(&value, 1, MPI_INT, 0, 0, dup);
    }
    MPI_Comm_free(&dup);
    MPI_Finalize();
    return 0;
}
