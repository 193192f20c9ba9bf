/* mpiscope-test
 * ranks: 2
 * expect: invalid-argument lines 14
 */
/* MPI_Intercomm_merge needs an intercommunicator; MPI_COMM_WORLD is an intracommunicator. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Comm merged;
    MPI_Init(&argc, &argv);
    MPI_Intercomm_merge(MPI_COMM_WORLD, 0, &merged);
    MPI_Finalize();
    return 0;
}
