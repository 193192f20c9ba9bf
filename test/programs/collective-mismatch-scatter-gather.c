/* mpiscope-test
 * ranks: 2
 * expect: collective-mismatch lines 16,18
 */
/* Rank 0 scatters while rank 1 gathers, both with root 0. The small messages are sent eagerly and
 * never matched, so both calls return and the run completes: a silent mismatch, not a hang. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, out[2] = {1, 2}, in[2] = {0, 0};

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        MPI_Scatter(out, 1, MPI_INT, in, 1, MPI_INT, 0, MPI_COMM_WORLD);
    else
        MPI_Gather(out, 1, MPI_INT, in, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
