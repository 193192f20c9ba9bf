/* mpiscope-test
 * ranks: 2
 * expect: invalid-argument lines 14
 */
/* A neighbourhood collective on a communicator without a process topology; one finding for both ranks. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int mine = 1, theirs[4];
    MPI_Init(&argc, &argv);
    MPI_Neighbor_allgather(&mine, 1, MPI_INT, theirs, 1, MPI_INT, MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
