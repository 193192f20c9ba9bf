/* mpiscope-test
 * ranks: 2
 * mode: memcheck
 * expect: none
 */
/* The correct twin of rma-race-shared-fence-two-stores.c: between two fences of a shared window, rank 0 stores into
 * the first half of its segment and rank 1 into the second half (through MPI_Win_shared_query's pointer); rank 1
 * also puts into element 0 of its own segment, which no one else touches in that epoch. After the next fence both
 * ranks read the whole of rank 0's segment (reads only). */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, *mine, *seg0, disp, v = 3, sum = 0;
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
        mine[0] = 1;
        mine[1] = 1;
    } else {
        seg0[2] = 2;
        seg0[3] = 2;
        MPI_Put(&v, 1, MPI_INT, 1, 0, 1, MPI_INT, win);
    }
    MPI_Win_fence(0, win);
    for (int i = 0; i < 4; i++)
        sum += seg0[i];
    MPI_Win_fence(0, win);
    printf("%d %d\n", rank, sum);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
