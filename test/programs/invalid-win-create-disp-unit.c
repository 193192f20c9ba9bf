/* mpiscope-test
 * ranks: 2
 * expect: invalid-argument error lines 16
 */
/* MPI_Win_create with a displacement unit of -1 on every rank (MPI-3.1 11.2.1: disp_unit is positive). Under
 * MPI_ERRORS_ARE_FATAL MPI then aborts the job inside the call: the finding is made before MPI sees the call, and
 * the same bad argument on both ranks is one finding. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int buf[4];
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Win_create(buf, sizeof buf, -1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
