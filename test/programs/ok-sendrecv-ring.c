/* mpiscope-test
 * ranks: 3
 * expect: none
 */
/* Every rank shifts a value around a ring with MPI_Sendrecv, which pairs the send and the
 * receive inside the library and cannot deadlock or depend on buffering. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size, sum, carry, incoming;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int left = (rank + size - 1) % size;
    int right = (rank + 1) % size;

    sum = carry = rank;
    for (int step = 1; step < size; step++) {
        MPI_Sendrecv(&carry, 1, MPI_INT, right, 0, &incoming, 1, MPI_INT, left, 0, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        carry = incoming;
        sum += carry;
    }
    if (sum != size * (size - 1) / 2)
        printf("rank %d: wrong sum %d\n", rank, sum);
    MPI_Finalize();
    return 0;
}
