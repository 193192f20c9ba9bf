/* mpiscope-test
 * ranks: 2
 * expect: invalid-argument error lines 19
 */
/* Every rank reduces with an op variable that was zeroed and never set (a NULL pointer under Open MPI, 0 under
 * MPICH): not MPI_OP_NULL, and not an operation either. The errors return so that the job goes on. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    int v = 3, sum = 0;
    MPI_Op op;

    memset(&op, 0, sizeof op);
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int rc = MPI_Reduce(&v, &sum, 1, MPI_INT, op, 0, MPI_COMM_WORLD);
    if (rc == MPI_SUCCESS)
        printf("the library accepted it\n");
    MPI_Finalize();
    return 0;
}
