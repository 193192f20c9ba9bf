/* mpiscope-test
 * ranks: 2
 * expect: call-order error lines 26
 * mpi: openmpi
 */
/* Rank 0 exposes its window to rank 1 and frees the window without MPI_Win_wait: the exposure epoch is still
 * open at MPI_Win_free, so rank 1's put may never be complete at rank 0 (freeing it then is erroneous). Open MPI frees the window anyway; MPICH 4.0
 * fails rank 0's MPI_Win_free and rank 1 then hangs in MPI_Win_complete or MPI_Win_free, whichever it reached. */
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
    if (rank == 0) {
        /* Meant: MPI_Win_wait(win) after the post, before the free. */
        MPI_Win_post(other, 0, win);
    } else {
        MPI_Win_start(other, 0, win);
        MPI_Put(&v, 1, MPI_INT, 0, 1, 1, MPI_INT, win);
        MPI_Win_complete(win);
    }
    MPI_Win_free(&win);
    MPI_Group_free(&other);
    MPI_Group_free(&world);
    MPI_Finalize();
    return 0;
}
