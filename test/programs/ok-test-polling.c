/* mpiscope-test
 * ranks: 2
 * expect: none
 */
/* Rank 1 overlaps work with a pending receive by polling MPI_Test until it completes. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, value = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        value = 21;
        MPI_Send(&value, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
    } else {
        MPI_Request req;
        int done = 0;
        double work = 0;
        MPI_Irecv(&value, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, &req);
        while (!done) {
            work += 1.0;
            MPI_Test(&req, &done, MPI_STATUS_IGNORE);
        }
    }
    MPI_Finalize();
    return 0;
}
