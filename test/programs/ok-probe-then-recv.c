/* mpiscope-test
 * ranks: 2
 * expect: none
 */
/* The receiver learns the length of a message with MPI_Probe and MPI_Get_count, then allocates
 * exactly enough and receives it from the probed source and tag. */
#include <mpi.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        int data[37];
        for (int i = 0; i < 37; i++)
            data[i] = i;
        MPI_Send(data, 37, MPI_INT, 1, 3, MPI_COMM_WORLD);
    } else {
        MPI_Status status;
        int count;
        MPI_Probe(0, 3, MPI_COMM_WORLD, &status);
        MPI_Get_count(&status, MPI_INT, &count);
        int *data = malloc(count * sizeof(int));
        MPI_Recv(data, count, MPI_INT, status.MPI_SOURCE, status.MPI_TAG, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
        free(data);
    }
    MPI_Finalize();
    return 0;
}
