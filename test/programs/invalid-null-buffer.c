/* mpiscope-test
 * ranks: 2
 * expect: invalid-argument lines 19
 */
/* Rank 0 sends four integers from a NULL buffer.
 * MPI_ERRORS_RETURN makes the library return an error code instead of aborting the job, so the
 * program reports the error and both ranks finalize normally. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank;

    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        int rc = MPI_Send(NULL, 4, MPI_INT, 1, 0, MPI_COMM_WORLD);
        if (rc == MPI_SUCCESS)
            printf("the library accepted it\n");
    }
    MPI_Finalize();
    return 0;
}
