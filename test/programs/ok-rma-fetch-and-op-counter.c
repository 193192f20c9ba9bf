/* mpiscope-test
 * ranks: 4
 * expect: none
 */
/* A shared ticket counter: every rank takes three tickets from a counter in rank 0's window with
 * MPI_Fetch_and_op(MPI_SUM) inside one MPI_Win_lock_all epoch. Atomic accumulates with one op on one
 * type may be concurrent. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size, *counter, one = 1, ticket;
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &counter, &win);
    *counter = 0;
    MPI_Barrier(MPI_COMM_WORLD);

    MPI_Win_lock_all(0, win);
    for (int i = 0; i < 3; i++) {
        MPI_Fetch_and_op(&one, &ticket, MPI_INT, 0, 0, MPI_SUM, win);
        MPI_Win_flush(0, win);
        if (ticket < 0 || ticket >= 3 * size) printf("rank %d got ticket %d\n", rank, ticket);
    }
    MPI_Win_unlock_all(win);

    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0 && *counter != 3 * size) printf("counter is %d\n", *counter);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
