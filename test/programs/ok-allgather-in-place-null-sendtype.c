/* mpiscope-test
 * ranks: 2
 * expect: none
 */
/* MPI_Allgather with MPI_IN_PLACE: the send count and type are ignored, MPI_DATATYPE_NULL there is legal. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, all[2];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    all[rank] = rank;
    MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all, 1, MPI_INT, MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
