/* mpiscope-test
 * ranks: 2
 * expect: call-order lines 22
 */
/* Rank 0 puts into rank 1's window inside a fence epoch, and both ranks free the window with no fence after the
 * Put: the access epoch still holds an operation that no synchronization completed (MPI-3.1 11.2.5: MPI_Win_free
 * requires every RMA operation on the window to be complete, and no epoch open). */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, value = 42, buf[4] = { 0, 0, 0, 0 };
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_create(buf, sizeof buf, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_fence(0, win);
    if (rank == 0)
        MPI_Put(&value, 1, MPI_INT, 1, 0, 1, MPI_INT, win);
    MPI_Win_free(&win);
    printf("rank %d: %d\n", rank, buf[0]);
    MPI_Finalize();
    return 0;
}
