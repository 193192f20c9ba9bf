/* mpiscope-test
 * ranks: 3
 * expect: rma-race lines 25,27
 */
/* Passive target: rank 1 writes element 2 of rank 0's window while rank 2 reads it, each inside its own
 * MPI_Win_lock_all epoch, with nothing ordering the two epochs: rank 2 may read the old or the new value. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, value = 42, seen = -1;
    int *window_mem;
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_allocate(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &window_mem,
                     &win);
    window_mem[2] = 7;
    MPI_Barrier(MPI_COMM_WORLD);

    MPI_Win_lock_all(0, win);
    if (rank == 1) {
        MPI_Put(&value, 1, MPI_INT, 0, 2, 1, MPI_INT, win);
    } else if (rank == 2) {
        MPI_Get(&seen, 1, MPI_INT, 0, 2, 1, MPI_INT, win);
    }
    MPI_Win_unlock_all(win);

    if (rank == 2) printf("rank 2 read %d\n", seen);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
