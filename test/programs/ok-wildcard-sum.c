/* mpiscope-test
 * ranks: 4
 * expect: none
 */
/* The master takes one result from each worker with MPI_ANY_SOURCE. Which worker comes first is
 * decided by timing, but the messages are interchangeable (same tag, same size, received by the
 * same call) and are summed, so by the corpus rule this is not a message race. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank == 0) {
        int sum = 0, seen = 0;
        for (int i = 1; i < size; i++) {
            int value;
            MPI_Status status;
            MPI_Recv(&value, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, &status);
            sum += value;
            seen |= 1 << status.MPI_SOURCE;
        }
        if (seen != (1 << size) - 2)
            printf("missing a worker: %x\n", seen);
        printf("sum of squares %d\n", sum);
    } else {
        int value = rank * rank;
        MPI_Send(&value, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
