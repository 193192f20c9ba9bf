/* mpiscope-test
 * ranks: 2
 * expect: call-order lines 18
 */
/* Rank 0 asks for its rank again after MPI_Finalize. Both libraries print an error and abort the
 * process on that call. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Finalize();
    if (rank == 0) {
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        printf("rank %d after finalize\n", rank);
    }
    return 0;
}
