/* mpiscope-test
 * ranks: 3
 * expect: none
 */
/* MPI_IN_PLACE as the send buffer of Allreduce: the input is taken from, and the result written
 * to, the receive buffer. Allowed, and not an invalid argument. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size, v[2];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    v[0] = rank;
    v[1] = 1;
    MPI_Allreduce(MPI_IN_PLACE, v, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (v[1] != size)
        printf("rank %d: wrong count %d\n", rank, v[1]);
    MPI_Finalize();
    return 0;
}
