/* mpiscope-test
 * ranks: 4
 * expect: none
 */
/* Every rank puts its rank into its own slot of rank 0's window between two fences, then reads its
 * neighbour's slot back in the next epoch: disjoint locations in one epoch, and a read separated by a fence. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size, slots[16] = {0}, back = -1;
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Win_create(slots, sizeof slots, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);

    MPI_Win_fence(0, win);
    MPI_Put(&rank, 1, MPI_INT, 0, rank, 1, MPI_INT, win);
    MPI_Win_fence(0, win);
    MPI_Get(&back, 1, MPI_INT, 0, (rank + 1) % size, 1, MPI_INT, win);
    MPI_Win_fence(0, win);

    if (back != (rank + 1) % size) printf("rank %d read %d\n", rank, back);
    if (rank == 0 && slots[size - 1] != size - 1) printf("slot %d holds %d\n", size - 1, slots[size - 1]);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
