/* mpiscope-test
 * ranks: 2
 * expect: none
 */
/* Every rank writes its block with MPI_File_write_at_all, reads it back with MPI_File_read_at_all, closes. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, out[4], in[4];
    MPI_File fh;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int i = 0; i < 4; i++)
        out[i] = rank * 4 + i;
    MPI_File_open(MPI_COMM_WORLD, "mpiscope-io.dat", MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE,
                  MPI_INFO_NULL, &fh);
    MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL);
    MPI_File_write_at_all(fh, rank * 4, out, 4, MPI_INT, MPI_STATUS_IGNORE);
    MPI_File_sync(fh);
    MPI_File_read_at_all(fh, rank * 4, in, 4, MPI_INT, MPI_STATUS_IGNORE);
    MPI_File_close(&fh);
    MPI_Finalize();
    return 0;
}
