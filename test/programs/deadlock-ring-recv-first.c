/* mpiscope-test
 * ranks: 3
 * expect: deadlock lines 19
 */
/* A ring in which every rank waits for its left neighbour before passing the token on:
 * nobody starts, so every rank is blocked in the same receive. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, size, token = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int left = (rank + size - 1) % size;
    int right = (rank + 1) % size;

    MPI_Recv(&token, 1, MPI_INT, left, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    token += 1;
    MPI_Send(&token, 1, MPI_INT, right, 0, MPI_COMM_WORLD);

    MPI_Finalize();
    return 0;
}
