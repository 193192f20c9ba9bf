/* mpiscope-test
 * ranks: 2
 * mode: memcheck
 * expect: none
 */
/* The correct twin of rma-race-passive-local-store-vs-put.c: rank 0 initializes its window before a barrier that
 * precedes rank 1's lock, stores into other elements while rank 1's put is in flight, and reads the element rank
 * 1 put only after a message rank 1 sends after its unlock (the unlock completed the put at the target). */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, *base, one = 1, token = 0;
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_allocate(8 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    for (int i = 0; i < 8; i++)
        base[i] = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        for (int i = 0; i < 4; i++)
            base[i] = i;
        MPI_Recv(&token, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        base[5] += 1;
        printf("%d %d\n", base[3], base[5]);
    } else {
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
        MPI_Put(&one, 1, MPI_INT, 0, 5, 1, MPI_INT, win);
        MPI_Win_unlock(0, win);
        MPI_Send(&token, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    }
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
