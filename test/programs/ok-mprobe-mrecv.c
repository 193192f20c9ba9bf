/* mpiscope-test
 * ranks: 2
 * expect: none
 */
/* Matched probe: MPI_Mprobe removes the message from the queue and MPI_Mrecv receives exactly that
 * message, the thread-safe way to size a receive. */
#include <mpi.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        double data[10] = {0};
        MPI_Send(data, 10, MPI_DOUBLE, 1, 2, MPI_COMM_WORLD);
    } else {
        MPI_Message message;
        MPI_Status status;
        int count;
        MPI_Mprobe(0, 2, MPI_COMM_WORLD, &message, &status);
        MPI_Get_count(&status, MPI_DOUBLE, &count);
        double *data = malloc(count * sizeof(double));
        MPI_Mrecv(data, count, MPI_DOUBLE, &message, MPI_STATUS_IGNORE);
        free(data);
    }
    MPI_Finalize();
    return 0;
}
