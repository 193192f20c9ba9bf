/* mpiscope-test
 * ranks: 2
 * expect: collective-mismatch lines 16
 */
/* Each rank names itself as the root of the broadcast. With two ranks both "roots" just send and
 * return, so the run completes, but the broadcast delivered nothing. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, value;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    value = rank;
    MPI_Bcast(&value, 1, MPI_INT, rank, MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
