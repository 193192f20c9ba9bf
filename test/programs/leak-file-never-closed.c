/* mpiscope-test
 * ranks: 2
 * expect: resource-leak lines 14
 */
/* A file opened on every rank and never closed: one leak, at the MPI_File_open line, for both ranks. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_File fh;
    MPI_Init(&argc, &argv);
    MPI_File_open(MPI_COMM_WORLD, "mpiscope-leak.dat", MPI_MODE_CREATE | MPI_MODE_WRONLY | MPI_MODE_DELETE_ON_CLOSE,
                  MPI_INFO_NULL, &fh);
    MPI_Finalize();
    return 0;
}
