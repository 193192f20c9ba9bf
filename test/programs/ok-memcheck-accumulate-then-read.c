/* mpiscope-test
 * ranks: 3
 * mode: memcheck
 * expect: none
 */
/* The correct twin of rma-race-local-load-vs-accumulate.c: accumulates with the same op into rank 0's counter in
 * one epoch, and rank 0 reads the counter only after the closing fence. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank;
    long *base, one = 1;
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_allocate(sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    *base = 0;
    MPI_Win_fence(0, win);
    if (rank != 0)
        MPI_Accumulate(&one, 1, MPI_LONG, 0, 0, 1, MPI_LONG, MPI_SUM, win);
    MPI_Win_fence(0, win);
    if (rank == 0)
        printf("%ld\n", *base);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
