/* mpiscope-test
 * ranks: 2
 * expect: invalid-argument error lines 15
 */
/* MPI_Win_create with a negative size. The errors return so that the job goes on. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int buf[4];
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (MPI_Win_create(buf, -16, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win) == MPI_SUCCESS)
        MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
