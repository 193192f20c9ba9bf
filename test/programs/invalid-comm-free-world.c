/* mpiscope-test
 * ranks: 2
 * expect: invalid-argument lines 17
 */
/* Freeing MPI_COMM_WORLD (through a copy of the handle). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Comm world = MPI_COMM_WORLD;
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        MPI_Comm_free(&world);
    MPI_Finalize();
    return 0;
}
