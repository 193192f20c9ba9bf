/* mpiscope-test
 * ranks: 3
 * expect: message-race lines 22,27
 */
/* Rank 0 receives from any source with one call in a loop, but the workers send different
 * lengths (rank r sends r ints), so the order is observable: the counts printed by the loop
 * differ from run to run. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size, data[8] = {0};

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank == 0) {
        for (int i = 1; i < size; i++) {
            MPI_Status status;
            int count;
            MPI_Recv(data, 8, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, &status);
            MPI_Get_count(&status, MPI_INT, &count);
            printf("message %d has %d ints\n", i, count);
        }
    } else {
        MPI_Send(data, rank, MPI_INT, 0, 0, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
