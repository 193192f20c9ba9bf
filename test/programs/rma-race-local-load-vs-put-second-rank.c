/* mpiscope-test
 * ranks: 2
 * mode: memcheck
 * expect: rma-race lines 27,29
 */
/* Rank 0 puts into element 0 of rank 1's MPI_Win_allocate window while rank 1 loads that element, in one fence
 * epoch: the load may see the old value or the new one. The target is the second rank of the node: MPICH 4.0.2
 * (ch4) hands it a base pointer 8 bytes past the window's MPI_WIN_BASE, so the load is placed from the pointer
 * the program was given (MPI says it is the window's base), not from the attribute; rma-race-local-store-vs-put.c
 * has the target on rank 0, where the two agree. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, *base, one = 1, seen = -1;
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_allocate(10 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    for (int i = 0; i < 10; i++)
        base[i] = 0;

    MPI_Win_fence(0, win);
    if (rank == 0) {
        MPI_Put(&one, 1, MPI_INT, 1, 0, 1, MPI_INT, win);
    } else {
        seen = base[0];
    }
    MPI_Win_fence(0, win);

    if (rank == 1) printf("seen %d\n", seen);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
