/* mpiscope-test
 * ranks: 2
 * expect: invalid-argument error lines 15
 */
/* Every rank names MPI_DATATYPE_NULL as the receive type of an all-to-all exchange. The errors return so that
 * the job goes on. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int out[2] = {1, 2}, in[2] = {0, 0};

    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Alltoall(out, 1, MPI_INT, in, 1, MPI_DATATYPE_NULL, MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
