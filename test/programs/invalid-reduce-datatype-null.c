/* mpiscope-test
 * ranks: 2
 * expect: invalid-argument error lines 15
 */
/* Every rank reduces with MPI_DATATYPE_NULL: a reduction needs a datatype on every rank, the root too. The
 * errors return so that the job goes on. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int v = 3, sum = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Reduce(&v, &sum, 1, MPI_DATATYPE_NULL, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
