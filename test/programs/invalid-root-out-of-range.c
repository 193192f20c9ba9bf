/* mpiscope-test
 * ranks: 2
 * expect: invalid-argument lines 18
 */
/* Every rank broadcasts from root 2 in a job of two ranks. Both libraries check the root before
 * communicating, so with MPI_ERRORS_RETURN every rank gets an error back and nothing hangs.
 * One call site on both ranks: one finding with a location per rank. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, value = 1;

    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int rc = MPI_Bcast(&value, 1, MPI_INT, 2, MPI_COMM_WORLD);
    if (rc == MPI_SUCCESS)
        printf("rank %d: the library accepted root 2\n", rank);
    MPI_Finalize();
    return 0;
}
