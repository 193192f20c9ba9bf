/* mpiscope-test
 * ranks: 2
 * expect: none
 */
/* Rank 1 polls with MPI_Iprobe until the message from rank 0 is there, doing other work between
 * polls, then receives exactly what it probed. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, value = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        value = 17;
        MPI_Send(&value, 1, MPI_INT, 1, 4, MPI_COMM_WORLD);
    } else {
        int flag = 0;
        long work = 0;
        MPI_Status status;
        while (!flag) {
            MPI_Iprobe(0, 4, MPI_COMM_WORLD, &flag, &status);
            work++;
        }
        MPI_Recv(&value, 1, MPI_INT, status.MPI_SOURCE, status.MPI_TAG, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return 0;
}
