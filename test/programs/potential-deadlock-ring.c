/* mpiscope-test
 * ranks: 3
 * expect: potential-deadlock lines 18
 */
/* Every rank of a ring sends to its right neighbour before receiving from its left one: a cycle
 * of standard sends that only eager buffering of the small message breaks. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, size, in;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int left = (rank + size - 1) % size;
    int right = (rank + 1) % size;
    MPI_Send(&rank, 1, MPI_INT, right, 0, MPI_COMM_WORLD);
    MPI_Recv(&in, 1, MPI_INT, left, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Finalize();
    return 0;
}
