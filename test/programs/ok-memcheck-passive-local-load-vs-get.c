/* mpiscope-test
 * ranks: 2
 * mode: memcheck
 * expect: none
 */
/* The correct twin of rma-race-passive-local-store-vs-get.c: rank 0 only reads its window while rank 1 reads the
 * same element with MPI_Get under a shared lock. Two reads never conflict, whatever their order. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, *base, got = -1, sum = 0;
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_allocate(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    for (int i = 0; i < 4; i++)
        base[i] = i;
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        for (int i = 0; i < 4; i++)
            sum += base[i];
    } else {
        MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
        MPI_Get(&got, 1, MPI_INT, 0, 3, 1, MPI_INT, win);
        MPI_Win_unlock(0, win);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if ((rank == 0 && sum != 6) || (rank == 1 && got != 3))
        printf("rank %d: sum %d got %d\n", rank, sum, got);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
