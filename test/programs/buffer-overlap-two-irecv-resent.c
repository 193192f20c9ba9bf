/* mpiscope-test
 * ranks: 2
 * expect: buffer-overlap error lines 25,26
 */
/* Rank 1 posts two receives from rank 0 into one buffer. Rank 0 sends its buffer, waits for the send, changes the
 * buffer and sends it again: the two messages differ, so which values the buffer ends with depends on which lands
 * last (on an MPI that moves them in either order), a timing-dependent error. The twin of
 * buffer-overlap-two-irecv-same-bytes, whose two messages are copies of the same bytes. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, data[5] = {0};
    MPI_Request reqs[2];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Send(data, 5, MPI_INT, 1, 7, MPI_COMM_WORLD);
        for (int i = 0; i < 5; i++)
            data[i] = i + 1;
        MPI_Send(data, 5, MPI_INT, 1, 8, MPI_COMM_WORLD);
    } else {
        MPI_Irecv(data, 5, MPI_INT, 0, 7, MPI_COMM_WORLD, &reqs[0]);
        MPI_Irecv(data, 5, MPI_INT, 0, 8, MPI_COMM_WORLD, &reqs[1]);
        MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
        printf("rank 1: %d\n", data[4]);
    }
    MPI_Finalize();
    return 0;
}
