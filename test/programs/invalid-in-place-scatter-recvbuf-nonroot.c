/* mpiscope-test
 * ranks: 2
 * expect: invalid-argument lines 21
 */
/* Both ranks pass MPI_IN_PLACE as the receive buffer of MPI_Scatter. The standard allows it at the root only
 * (the root's own block stays where it is); elsewhere it is no buffer: Open MPI refuses it (MPI_ERRORS_RETURN
 * lets rank 1 go on), MPICH writes through it. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, all[2] = {1, 2};

    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        MPI_Scatter(all, 1, MPI_INT, MPI_IN_PLACE, 1, MPI_INT, 0, MPI_COMM_WORLD);
    else
        MPI_Scatter(NULL, 1, MPI_INT, MPI_IN_PLACE, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
