/* mpiscope-test
 * ranks: 2
 * expect: call-order warning lines 28
 */
/* The pattern of PETSc's PetscSF of the window type with lock synchronization (sfwindow.c): each rank fills its
 * own part of a window under a lock of itself, a fence makes the data visible, each rank reads its neighbour's
 * part under a shared lock, and a fence with MPI_MODE_NOSUCCEED ends the round; twice, on the same window. The
 * fences hold no access of their own: every Get is inside a lock epoch of its target. By the standard's text the
 * first fence of a round still opens an access epoch that the lock overlaps; MPICH and Open MPI accept it: a
 * warning, not the error of call-order-rma-fence-then-lock.c, whose Put before the lock belongs to the fence. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size, *base, got = 0, round;
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    for (round = 0; round < 2; round++) {
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, MPI_MODE_NOCHECK, win);
        *base = 10 * round + rank;
        MPI_Win_unlock(rank, win);
        MPI_Win_fence(0, win);
        MPI_Win_lock(MPI_LOCK_SHARED, (rank + 1) % size, 0, win);
        MPI_Get(&got, 1, MPI_INT, (rank + 1) % size, 0, 1, MPI_INT, win);
        MPI_Win_unlock((rank + 1) % size, win);
        MPI_Win_fence(MPI_MODE_NOPUT | MPI_MODE_NOSUCCEED, win);
        if (got != 10 * round + (rank + 1) % size) printf("rank %d: round %d read %d\n", rank, round, got);
    }
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
