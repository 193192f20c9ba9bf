/* mpiscope-test
 * ranks: 4
 * expect: none
 */
/* Every rank adds its rank into element 0 of rank 0's window with MPI_Accumulate(MPI_SUM) in one fence
 * epoch: concurrent accumulates with the same op on the same type are what MPI_Accumulate is for. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size, total[2] = {0, 0};
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Win_create(total, sizeof total, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);

    MPI_Win_fence(0, win);
    MPI_Accumulate(&rank, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_SUM, win);
    MPI_Win_fence(0, win);

    if (rank == 0 && total[0] != size * (size - 1) / 2) printf("wrong sum %d\n", total[0]);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
