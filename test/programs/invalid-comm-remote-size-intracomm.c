/* mpiscope-test
 * ranks: 2
 * expect: invalid-argument lines 16
 */
/* MPI_Comm_remote_size of an intracommunicator. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int n = 0, rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        MPI_Comm_remote_size(MPI_COMM_WORLD, &n);
    MPI_Finalize();
    return 0;
}
