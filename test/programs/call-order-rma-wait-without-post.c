/* mpiscope-test
 * ranks: 2
 * expect: call-order error lines 31
 */
/* Rank 0 exposes its window once, waits for the epoch's end, then waits again with no MPI_Win_post before the
 * second wait (a loop that posts once but waits every iteration): MPI_ERR_RMA_SYNC, or a hang. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, *mem, v = 3, peer;
    MPI_Win win;
    MPI_Group world, other;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    peer = 1 - rank;
    MPI_Group_incl(world, 1, &peer, &other);
    MPI_Win_allocate(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    if (rank == 0)
        MPI_Win_post(other, 0, win);
    for (int it = 0; it < 2; it++) {
        if (rank == 1 && it == 0) {
            MPI_Win_start(other, 0, win);
            MPI_Put(&v, 1, MPI_INT, 0, it, 1, MPI_INT, win);
            MPI_Win_complete(win);
        }
        if (rank == 0)
            MPI_Win_wait(win);
    }
    MPI_Win_free(&win);
    MPI_Group_free(&other);
    MPI_Group_free(&world);
    MPI_Finalize();
    return 0;
}
