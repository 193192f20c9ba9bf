/* mpiscope-test
 * ranks: 3
 * expect: none
 */
/* Each rank rotates a block around the ring in place with MPI_Sendrecv_replace. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, size, block[4];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int i = 0; i < 4; i++)
        block[i] = rank;
    for (int step = 0; step < size; step++)
        MPI_Sendrecv_replace(block, 4, MPI_INT, (rank + 1) % size, 0, (rank + size - 1) % size, 0,
                             MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Finalize();
    return 0;
}
