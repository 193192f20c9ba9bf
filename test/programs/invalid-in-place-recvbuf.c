/* mpiscope-test
 * ranks: 2
 * expect: invalid-argument lines 17
 */
/* MPI_IN_PLACE is allowed as the send buffer of MPI_Allreduce, never as its receive buffer.
 * Both libraries check this before communicating; MPI_ERRORS_RETURN lets every rank go on. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, value = 1;

    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int rc = MPI_Allreduce(&value, MPI_IN_PLACE, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rc == MPI_SUCCESS)
        printf("rank %d: the library accepted MPI_IN_PLACE as recvbuf\n", rank);
    MPI_Finalize();
    return 0;
}
