/* mpiscope-test
 * ranks: 2
 * expect: none
 */
/* Rank 1 changes synchronization mode on one window, twice: an exclusive lock epoch on rank 0 (its only
 * one-sided accesses between the fences are inside it), then a fence epoch. A fence followed only by a lock epoch
 * and the next fence opens no access epoch of its own, so the two do not overlap (MPICH's rma/mixedsync.c). The
 * barriers make the unlock complete before the fence. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, buf[4] = {0, 0, 0, 0}, v[2];
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_create(buf, sizeof buf, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    for (int loop = 0; loop < 2; loop++) {
        v[0] = 10 + loop;
        v[1] = 20 + loop;
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 1) {
            MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
            MPI_Put(&v[0], 1, MPI_INT, 0, 0, 1, MPI_INT, win);
            MPI_Win_unlock(0, win);
        }
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Win_fence(0, win);
        if (rank == 1) MPI_Put(&v[1], 1, MPI_INT, 0, 1, 1, MPI_INT, win);
        MPI_Win_fence(0, win);
        if (rank == 0 && (buf[0] != 10 + loop || buf[1] != 20 + loop)) printf("loop %d: %d %d\n", loop, buf[0], buf[1]);
    }
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
