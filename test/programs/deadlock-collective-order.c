/* mpiscope-test
 * ranks: 2
 * expect: collective-mismatch lines 18,21
 * expect: deadlock lines 18,21
 */
/* The two ranks call the same two collectives in opposite orders. Both collectives need every
 * rank's contribution, so rank 0 waits in the Allreduce for rank 1, which waits in the Barrier
 * for rank 0: a collective mismatch that hangs. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, in = 1, out = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        MPI_Barrier(MPI_COMM_WORLD);
    } else {
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
