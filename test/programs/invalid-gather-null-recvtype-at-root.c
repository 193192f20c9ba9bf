/* mpiscope-test
 * ranks: 2
 * expect: invalid-argument lines 16
 */
/* The root of a gather passes MPI_DATATYPE_NULL as its receive type. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, mine, all[2];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    mine = rank;
    MPI_Gather(&mine, 1, MPI_INT, all, 1, rank == 0 ? MPI_DATATYPE_NULL : MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
