/* mpiscope-test
 * ranks: 2
 * expect: count-mismatch lines 17,19
 */
/* The root broadcasts two ints while rank 1 expects four. Open MPI delivers the two silently;
 * MPICH notices and returns an error on rank 1 (MPI_ERRORS_RETURN keeps the job alive). */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, data[4] = {1, 2, 3, 4};

    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        MPI_Bcast(data, 2, MPI_INT, 0, MPI_COMM_WORLD);
    else
        MPI_Bcast(data, 4, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
