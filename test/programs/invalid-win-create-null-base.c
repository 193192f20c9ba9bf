/* mpiscope-test
 * ranks: 2
 * expect: invalid-argument lines 14
 */
/* MPI_Win_create with a NULL base and a positive size. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Win win;
    MPI_Init(&argc, &argv);
    MPI_Win_create(NULL, 64, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
