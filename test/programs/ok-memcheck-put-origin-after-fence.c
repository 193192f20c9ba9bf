/* mpiscope-test
 * ranks: 2
 * mode: memcheck
 * expect: none
 */
/* The origin buffer of a Put is read while the epoch is open (allowed) and rewritten only after the fence that
 * completes the Put; the buffer of a Get is read only after MPI_Win_flush completed it. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, *base, origin[4] = {1, 2, 3, 4}, got[4] = {0};
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_allocate(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    for (int i = 0; i < 4; i++)
        base[i] = 0;
    MPI_Win_fence(0, win);
    long check = 0;
    if (rank == 1) {
        MPI_Put(origin, 4, MPI_INT, 0, 0, 4, MPI_INT, win);
        for (int i = 0; i < 4; i++)
            check += origin[i];
    }
    MPI_Win_fence(0, win);
    if (rank == 1) {
        origin[0] = 100;
        MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
        MPI_Get(got, 4, MPI_INT, 0, 0, 4, MPI_INT, win);
        MPI_Win_flush(0, win);
        check += got[3];
        MPI_Win_unlock(0, win);
        printf("%ld\n", check);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
