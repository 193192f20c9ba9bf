/* mpiscope-test
 * ranks: 2
 * expect: none
 */
/* The correct twin of call-order-rma-lock-all-open-at-finalize.c: the lock_all epoch is closed with
 * MPI_Win_unlock_all and the window freed before MPI_Finalize. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, buf[2] = {0, 0}, got = -1;
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    buf[0] = rank;
    MPI_Win_create(buf, sizeof buf, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock_all(0, win);
    MPI_Get(&got, 1, MPI_INT, 1 - rank, 0, 1, MPI_INT, win);
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
