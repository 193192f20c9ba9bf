/* mpiscope-test
 * ranks: 4
 * expect: none
 */
/* A master probes MPI_ANY_SOURCE and receives from the probed source. Workers' results have one
 * tag and one size and are consumed by the same probe and receive, and stored by source: the
 * arrival order is not observable, so by the corpus rule this is not a race. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, size;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank == 0) {
        int results[16] = {0};
        for (int i = 1; i < size; i++) {
            MPI_Status status;
            MPI_Probe(MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, &status);
            MPI_Recv(&results[status.MPI_SOURCE], 1, MPI_INT, status.MPI_SOURCE, 0, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        }
    } else {
        int result = rank * 3;
        MPI_Send(&result, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
