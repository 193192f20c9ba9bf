/* mpiscope-test
 * ranks: 2
 * expect: deadlock lines 21,24
 * expect: message-mismatch error lines 19,21
 */
/* Rank 0 sends with tag 1, rank 1 receives with tag 2. The small message is buffered, rank 0
 * goes on to MPI_Finalize, and rank 1 waits forever: the deadlock is a tag mismatch, reported at
 * both ends. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, value = 3;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        /* tag 1 here ... */
        MPI_Send(&value, 1, MPI_INT, 1, 1, MPI_COMM_WORLD);
    } else if (rank == 1) {
        MPI_Recv(&value, 1, MPI_INT, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* ... tag 2 there */
    }

    MPI_Finalize();
    return 0;
}
