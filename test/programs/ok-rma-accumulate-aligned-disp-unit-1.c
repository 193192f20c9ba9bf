/* mpiscope-test
 * ranks: 3
 * expect: none
 */
/* The window's displacement unit is 1 and ranks 1 and 2 accumulate ints with MPI_SUM at byte displacements 0
 * and 4 of rank 0's window in one fence epoch: the byte ranges overlap (one int), element on element, so the
 * accumulates are atomic with respect to each other. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, add[2], window_mem[4] = {0};
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    add[0] = add[1] = rank;
    MPI_Win_create(window_mem, sizeof window_mem, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);

    MPI_Win_fence(0, win);
    if (rank == 1)
        MPI_Accumulate(add, 2, MPI_INT, 0, 0, 2, MPI_INT, MPI_SUM, win);
    else if (rank == 2)
        MPI_Accumulate(add, 2, MPI_INT, 0, 4, 2, MPI_INT, MPI_SUM, win);
    MPI_Win_fence(0, win);

    if (rank == 0) printf("element 1 is %d\n", window_mem[1]);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
