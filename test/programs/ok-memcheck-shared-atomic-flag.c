/* mpiscope-test
 * ranks: 2
 * mode: memcheck
 * expect: none
 */
/* Rank 1 writes three values into rank 0's segment of a shared window, then raises a flag there with an atomic
 * release store; rank 0 polls the flag with atomic acquire loads and reads the values once it is up. No MPI call
 * orders the stores and the loads: the flag does, and mpiscope must see that (a rank that polls atomically may be
 * ordered by what it read). The flag's atomic store and loads never race with each other. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, *mine, *seg0, disp, sum = 0;
    MPI_Aint size;
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_allocate_shared(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mine, &win);
    MPI_Win_shared_query(win, 0, &size, &disp, &seg0);
    for (int i = 0; i < 4; i++)
        mine[i] = 0;
    MPI_Win_lock_all(0, win);
    MPI_Win_sync(win);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_sync(win);
    if (rank == 1) {
        for (int i = 1; i < 4; i++)
            seg0[i] = 10 * i;
        __atomic_store_n(&seg0[0], 1, __ATOMIC_RELEASE);
    } else {
        while (!__atomic_load_n(&mine[0], __ATOMIC_ACQUIRE))
            ;
        for (int i = 1; i < 4; i++)
            sum += mine[i];
    }
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    printf("%d %d\n", rank, sum);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
