/* mpiscope-test
 * ranks: 2
 * expect: none
 */
/* The correct twin of call-order-rma-start-twice.c: rank 0's second access epoch starts after MPI_Win_complete
 * closed the first; rank 1 exposes its memory twice, each time until MPI_Win_wait. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, buf[4] = {0, 0, 0, 0}, v = 3, peer, round;
    MPI_Win win;
    MPI_Group world, other;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    peer = 1 - rank;
    MPI_Group_incl(world, 1, &peer, &other);
    MPI_Win_create(buf, sizeof buf, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    for (round = 0; round < 2; round++) {
        if (rank == 1) {
            MPI_Win_post(other, 0, win);
            MPI_Win_wait(win);
        } else {
            v = 3 + round;
            MPI_Win_start(other, 0, win);
            MPI_Put(&v, 1, MPI_INT, 1, round, 1, MPI_INT, win);
            MPI_Win_complete(win);
        }
    }
    MPI_Win_free(&win);
    MPI_Group_free(&other);
    MPI_Group_free(&world);
    MPI_Finalize();
    return 0;
}
