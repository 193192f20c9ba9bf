/* mpiscope-test
 * ranks: 2
 * expect: invalid-argument lines 14
 */
/* MPI_Allgather with MPI_DATATYPE_NULL as the send type on every rank: one finding for both ranks. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int mine = 1, all[2];
    MPI_Init(&argc, &argv);
    MPI_Allgather(&mine, 1, MPI_DATATYPE_NULL, all, 1, MPI_INT, MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
