/* mpiscope-test
 * ranks: 2
 * expect: invalid-argument lines 17
 */
/* MPI_IN_PLACE given to MPI_Bcast, whose buffer is both what the root sends and what the others receive: the
 * standard has no in-place form of it. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank;

    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int rc = MPI_Bcast(MPI_IN_PLACE, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (rc == MPI_SUCCESS)
        printf("rank %d: the library accepted it\n", rank);
    MPI_Finalize();
    return 0;
}
