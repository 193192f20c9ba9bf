/* mpiscope-test
 * ranks: 2
 * mode: memcheck
 * expect: rma-race lines 34,36
 */
/* The buggy twin of ok-memcheck-shared-atomic-flag.c: rank 1 raises the flag in rank 0's segment of the shared
 * window with a plain store while rank 0 polls it with atomic loads. A plain store racing with atomic loads is a
 * data race (the compiler may split, delay or drop it); the values written before it are still ordered by the
 * flag once it is seen. Raise the flag with an atomic store (__atomic_store_n or C11 atomic_store). */
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
        __atomic_thread_fence(__ATOMIC_RELEASE);
        volatile int *flag = &seg0[0];
        *flag = 1;
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
