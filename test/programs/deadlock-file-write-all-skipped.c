/* mpiscope-test
 * ranks: 2
 * expect: deadlock lines 19,21
 */
/* Rank 1 skips the collective write that rank 0 waits in, and waits in a barrier instead. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, v = 1;
    MPI_File fh;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_File_open(MPI_COMM_WORLD, "mpiscope-skip.dat", MPI_MODE_CREATE | MPI_MODE_WRONLY | MPI_MODE_DELETE_ON_CLOSE,
                  MPI_INFO_NULL, &fh);
    if (rank == 0)
        MPI_File_write_all(fh, &v, 1, MPI_INT, MPI_STATUS_IGNORE);
    else
        MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_close(&fh);
    MPI_Finalize();
    return 0;
}
