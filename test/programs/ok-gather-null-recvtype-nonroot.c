/* mpiscope-test
 * ranks: 2
 * expect: none
 */
/* Non-roots of a gather pass MPI_DATATYPE_NULL and NULL as the receive arguments, which MPI ignores there. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, mine, all[2];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    mine = rank;
    if (rank == 0)
        MPI_Gather(&mine, 1, MPI_INT, all, 1, MPI_INT, 0, MPI_COMM_WORLD);
    else
        MPI_Gather(&mine, 1, MPI_INT, NULL, 0, MPI_DATATYPE_NULL, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
