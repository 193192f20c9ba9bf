/* mpiscope-test
 * ranks: 3
 * expect: none
 */
/* Rank 0 polls with MPI_Testany over receives posted by one call, one per worker, counting
 * completions; which completes first does not matter. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        int values[2], completed = 0;
        MPI_Request reqs[2];
        for (int w = 0; w < 2; w++)
            MPI_Irecv(&values[w], 1, MPI_INT, w + 1, 0, MPI_COMM_WORLD, &reqs[w]);
        while (completed < 2) {
            int index, flag;
            MPI_Testany(2, reqs, &index, &flag, MPI_STATUS_IGNORE);
            if (flag && index != MPI_UNDEFINED)
                completed++;
        }
    } else {
        MPI_Send(&rank, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
