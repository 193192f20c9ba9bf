/* mpiscope-test
 * ranks: 2
 * expect: type-mismatch lines 18,21
 */
/* Rank 0 sends integers and rank 1 receives them as floats. Both are four bytes, so MPI sees no
 * error and rank 1 silently gets garbage. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        int data[4] = {1, 2, 3, 4};
        MPI_Send(data, 4, MPI_INT, 1, 0, MPI_COMM_WORLD);
    } else {
        float data[4];
        MPI_Recv(data, 4, MPI_FLOAT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        printf("received %g (1 was sent)\n", data[0]);
    }
    MPI_Finalize();
    return 0;
}
