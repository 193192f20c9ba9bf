/* mpiscope-test
 * ranks: 3
 * mode: memcheck
 * expect: rma-race lines 23,25
 */
/* Ranks 1 and 2 add into rank 0's counter (the same op, which is fine between them) while rank 0 reads the counter
 * in the same fence epoch: what it reads is undefined. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank;
    long *base, one = 1, peek = 0;
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_allocate(sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    *base = 0;
    MPI_Win_fence(0, win);
    if (rank != 0)
        MPI_Accumulate(&one, 1, MPI_LONG, 0, 0, 1, MPI_LONG, MPI_SUM, win);
    else
        peek = *base;
    MPI_Win_fence(0, win);
    if (rank == 0)
        printf("%ld %ld\n", peek, *base);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
