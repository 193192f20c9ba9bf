/* mpiscope-test
 * ranks: 2
 * expect: invalid-argument lines 19
 */
/* MPI_Reduce_scatter_block reduces a block of recvcount integers for every rank from each rank's send buffer,
 * here NULL on every rank (its size is recvcount times the communicator's size: the buffer has no count of its
 * own). */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, mine = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const int *send = NULL;
    int rc = MPI_Reduce_scatter_block(send, &mine, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rc == MPI_SUCCESS)
        printf("rank %d: the library accepted it\n", rank);
    MPI_Finalize();
    return 0;
}
