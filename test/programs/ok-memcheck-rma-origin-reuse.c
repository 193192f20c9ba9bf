/* mpiscope-test
 * ranks: 2
 * mode: memcheck
 * expect: none
 */
/* One origin buffer used by several one-sided accesses, each time legally: two puts read `v` in one fence
 * epoch (MPI only reads it), a get fills `v` again only after MPI_Win_flush_local completed the first get, an
 * MPI_Rget's buffer is reused after its MPI_Wait, and two MPI_NO_OP get-accumulates read nothing from their
 * origin argument. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, *base, v = 7, w = 0;
    MPI_Win win;
    MPI_Request req;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_allocate(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    for (int i = 0; i < 4; i++)
        base[i] = 0;

    MPI_Win_fence(0, win);
    if (rank == 0) {
        MPI_Put(&v, 1, MPI_INT, 1, 0, 1, MPI_INT, win);
        MPI_Put(&v, 1, MPI_INT, 1, 1, 1, MPI_INT, win);
    }
    MPI_Win_fence(0, win);

    if (rank == 0) {
        MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
        MPI_Get(&v, 1, MPI_INT, 1, 0, 1, MPI_INT, win);
        MPI_Win_flush_local(1, win);
        MPI_Get(&v, 1, MPI_INT, 1, 1, 1, MPI_INT, win);
        MPI_Win_flush(1, win);
        MPI_Rget(&w, 1, MPI_INT, 1, 0, 1, MPI_INT, win, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        MPI_Get(&w, 1, MPI_INT, 1, 1, 1, MPI_INT, win);
        MPI_Win_flush(1, win);
        MPI_Get_accumulate(&v, 1, MPI_INT, &w, 1, MPI_INT, 1, 2, 1, MPI_INT, MPI_NO_OP, win);
        MPI_Win_flush_local(1, win);
        MPI_Get_accumulate(&v, 1, MPI_INT, &w, 1, MPI_INT, 1, 3, 1, MPI_INT, MPI_NO_OP, win);
        MPI_Win_unlock(1, win);
        printf("v %d w %d\n", v, w);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
