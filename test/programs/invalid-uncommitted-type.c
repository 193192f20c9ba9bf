/* mpiscope-test
 * ranks: 2
 * expect: invalid-argument lines 20
 */
/* Rank 0 builds a derived datatype but forgets MPI_Type_commit before sending with it.
 * MPI_ERRORS_RETURN makes the library return an error code instead of aborting the job. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, value[4] = {1, 2, 3, 4};
    MPI_Datatype pair;

    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Type_contiguous(2, MPI_INT, &pair);
    if (rank == 0) {
        int rc = MPI_Send(value, 2, pair, 1, 0, MPI_COMM_WORLD);
        if (rc == MPI_SUCCESS)
            printf("the library accepted it\n");
    }
    MPI_Type_free(&pair);
    MPI_Finalize();
    return 0;
}
