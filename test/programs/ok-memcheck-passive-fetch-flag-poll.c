/* mpiscope-test
 * ranks: 2
 * mode: memcheck
 * expect: none
 */
/* A correct twin of rma-race-passive-local-store-vs-fetch-and-op.c: rank 0 writes its data with plain stores,
 * then raises a flag in its window through MPI (MPI_Accumulate with MPI_REPLACE under its own shared lock);
 * rank 1 polls the flag with MPI_Fetch_and_op (MPI_NO_OP) and reads the data with MPI_Get only once the flag is
 * up. The flag's value orders the stores before the Get; no message or barrier does, and mpiscope must not call
 * the stores and the Get a race. The polls themselves read other bytes than the stores. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, *base, one = 1, flag = 0, dummy = 0, data[3] = { 0, 0, 0 };
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_allocate(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    for (int i = 0; i < 4; i++)
        base[i] = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        for (int i = 1; i < 4; i++)
            base[i] = 10 * i;
        MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
        MPI_Accumulate(&one, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_REPLACE, win);
        MPI_Win_unlock(0, win);
    } else {
        MPI_Win_lock_all(0, win);
        while (!flag) {
            MPI_Fetch_and_op(&dummy, &flag, MPI_INT, 0, 0, MPI_NO_OP, win);
            MPI_Win_flush(0, win);
        }
        MPI_Get(data, 3, MPI_INT, 0, 1, 3, MPI_INT, win);
        MPI_Win_unlock_all(win);
        printf("%d %d %d\n", data[0], data[1], data[2]);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
