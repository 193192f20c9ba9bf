/* mpiscope-test
 * ranks: 2
 * expect: call-order lines 19
 */
/* Each rank puts into the other's window before any MPI_Win_fence (or lock): no access epoch is open, so
 * MPI fails the call with MPI_ERR_RMA_SYNC (and, with the default error handler, ends the job there). */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, mem[2] = {0, 0}, one = 1;
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_create(mem, sizeof mem, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);

    /* The fence that should open the epoch is missing here. */
    MPI_Put(&one, 1, MPI_INT, 1 - rank, 0, 1, MPI_INT, win);
    MPI_Win_fence(0, win);
    MPI_Win_fence(0, win);

    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
