/* mpiscope-test
 * ranks: 2
 * mode: memcheck
 * expect: rma-race lines 28,30
 */
/* Between two fences of a shared window, rank 0 stores into element 2 of its segment and rank 1 stores into the
 * same element through MPI_Win_shared_query's pointer: a fence epoch orders nothing inside it, so the two stores
 * race and either value may remain. Let one rank write it, or separate the stores by a fence (or MPI_Win_sync and
 * a barrier). */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, *mine, *seg0, disp;
    MPI_Aint size;
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_allocate_shared(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mine, &win);
    MPI_Win_shared_query(win, 0, &size, &disp, &seg0);
    for (int i = 0; i < 4; i++)
        mine[i] = 0;
    MPI_Win_fence(0, win);
    if (rank == 0) {
        for (int i = 0; i < 2; i++)
            mine[2 + i] = 1;
    } else {
        seg0[2] = 2;
    }
    MPI_Win_fence(0, win);
    if (rank == 0)
        printf("%d\n", mine[2]);
    MPI_Win_fence(0, win);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
