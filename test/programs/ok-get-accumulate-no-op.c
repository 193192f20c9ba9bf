/* mpiscope-test
 * ranks: 2
 * expect: none
 */
/* MPI_Get_accumulate with MPI_NO_OP reads the target only: its origin buffer, count and type are ignored. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, *base, result = 0;
    MPI_Win win;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    *base = 42;
    MPI_Win_fence(0, win);
    if (rank == 1)
        MPI_Get_accumulate(NULL, 0, MPI_DATATYPE_NULL, &result, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_NO_OP, win);
    MPI_Win_fence(0, win);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
