/* mpiscope-test
 * ranks: 2
 * expect: deadlock lines 20,23
 */
/* Rank 0 closes the file (collective over the file) and then waits in a barrier; rank 1 does the two the other
 * way round. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank;
    MPI_File fh;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_File_open(MPI_COMM_WORLD, "mpiscope-order.dat", MPI_MODE_CREATE | MPI_MODE_WRONLY | MPI_MODE_DELETE_ON_CLOSE,
                  MPI_INFO_NULL, &fh);
    if (rank == 0) {
        MPI_File_close(&fh); /* rank 0 */
        MPI_Barrier(MPI_COMM_WORLD);
    } else {
        MPI_Barrier(MPI_COMM_WORLD); /* rank 1 */
        MPI_File_close(&fh);
    }
    MPI_Finalize();
    return 0;
}
