/* mpiscope-test
 * ranks: 2
 * expect: invalid-argument error lines 22
 */
/* Rank 0 sends with a datatype variable that was zeroed and never set (a NULL pointer under Open MPI, 0 under
 * MPICH): not MPI_DATATYPE_NULL, and not a datatype either. Rank 1 posts no receive, so nothing waits on the
 * refused send. The errors return so that the job goes on. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    int rank, value[4] = {1, 2, 3, 4};
    MPI_Datatype type;

    memset(&type, 0, sizeof type);
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        int rc = MPI_Send(value, 4, type, 1, 0, MPI_COMM_WORLD);
        if (rc == MPI_SUCCESS)
            printf("the library accepted it\n");
    }
    MPI_Finalize();
    return 0;
}
