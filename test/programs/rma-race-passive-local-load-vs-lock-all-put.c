/* mpiscope-test
 * ranks: 3
 * mode: memcheck
 * expect: rma-race lines 29,32
 * expect: rma-race lines 29,32
 */
/* Ranks 1 and 2 put into their own element of rank 0's window in a lock_all epoch, each flushed; rank 0 reads
 * the sum of the elements without any synchronization with them: its load of element 1 is not ordered with rank
 * 1's put, nor its load of element 2 with rank 2's put: two races (one per origin) at the same two lines, and it
 * may read the old values or the new ones. Wait for a message or a barrier after the origins' flush or unlock
 * before reading. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, *base, v, sum = 0;
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_allocate(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    for (int i = 0; i < 4; i++)
        base[i] = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    v = 10 * rank;
    if (rank == 0) {
        for (int i = 1; i < 3; i++)
            sum += base[i];
    } else {
        MPI_Win_lock_all(0, win);
        MPI_Put(&v, 1, MPI_INT, 0, rank, 1, MPI_INT, win);
        MPI_Win_flush(0, win);
        MPI_Win_unlock_all(win);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("%d\n", sum);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
