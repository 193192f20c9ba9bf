/* mpiscope-test
 * ranks: 2
 * expect: resource-leak lines 36
 */
/* Each rank reads its neighbour's window (created with MPI_Win_create) with MPI_Rget and completes the request
 * with MPI_Wait and a status. Open MPI does not write such a status: its count stays whatever the variable held
 * (here all bits set, more than INT_MAX), which the shim reports as unknown (-1). The rank must stay observed
 * after that: the datatype rank 1 creates later and never frees is a leak. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    int rank, size, got = -1, base[1];
    MPI_Win win;
    MPI_Request req;
    MPI_Status status;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    base[0] = 10 + rank;
    MPI_Win_create(base, sizeof base, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);

    MPI_Win_lock_all(0, win);
    MPI_Rget(&got, 1, MPI_INT, (rank + 1) % size, 0, 1, MPI_INT, win, &req);
    memset(&status, 0xff, sizeof status);
    MPI_Wait(&req, &status);
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    if (got != 10 + (rank + 1) % size) printf("rank %d read %d\n", rank, got);

    MPI_Win_free(&win);
    if (rank == 1) {
        MPI_Datatype pair;
        MPI_Type_contiguous(2, MPI_INT, &pair);
        MPI_Type_commit(&pair);
    }
    MPI_Finalize();
    return 0;
}
