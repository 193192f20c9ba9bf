/* mpiscope-test
 * ranks: 3
 * expect: message-race lines 17,22
 */
/* Ranks 1 and 2 each send one value; rank 0 takes them with two different wildcard receives
 * into "a" and "b" and prints a - b, whose sign depends on which message arrived first. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, a, b;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Recv(&a, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(&b, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        printf("a - b = %d\n", a - b);
    } else {
        int value = rank * 10;
        MPI_Send(&value, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
