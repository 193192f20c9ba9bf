/* mpiscope-test
 * ranks: 2
 * expect: call-order error lines 28
 * expect: deadlock lines 35
 * mpi: mpich
 */
/* call-order-rma-post-open-at-free.c on MPICH 4.0, where the bug hangs: rank 0 exposes its window to rank 1 and
 * frees it without MPI_Win_wait. MPICH fails rank 0's MPI_Win_free (the exposure epoch is open) and rank 1 waits
 * in its own MPI_Win_free forever; the barrier makes rank 1 reach MPI_Win_free (and not hang in MPI_Win_complete)
 * on every run. The call-order finding at the post comes with the hang: it is why the job hangs. */
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
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_free(&win);
    MPI_Group_free(&other);
    MPI_Group_free(&world);
    MPI_Finalize();
    return 0;
}
