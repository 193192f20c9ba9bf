/* mpiscope-test
 * ranks: 2
 * expect: invalid-argument error lines 15
 */
/* Every rank broadcasts with MPI_DATATYPE_NULL, which no collective accepts; the errors return so that the
 * job goes on. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int v = 3;

    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Bcast(&v, 1, MPI_DATATYPE_NULL, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
