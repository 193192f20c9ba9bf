/* mpiscope-test
 * ranks: 2
 * expect: buffer-overlap warning lines 25,26,27,28
 */
/* Each rank sends its own five ints to itself twice, on MPI_COMM_WORLD and on a duplicate of it (as cp2k does on
 * its row and column communicators), from one buffer, and receives both messages into one buffer. Two pending
 * receives into the same bytes are forbidden by MPI, but both messages are copies of the same bytes (the second
 * send was posted while the first was pending, so the buffer could not change) and land alike: whichever comes
 * last writes the same values, so a warning, not a timing-dependent error: one, for both ranks (the same call sites). */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, mine[5], got[5];
    MPI_Comm dup;
    MPI_Request reqs[4];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    for (int i = 0; i < 5; i++)
        mine[i] = 10 * rank + i;
    int me = rank;
    MPI_Isend(mine, 5, MPI_INT, me, 1, MPI_COMM_WORLD, &reqs[0]);
    MPI_Irecv(got, 5, MPI_INT, me, 1, MPI_COMM_WORLD, &reqs[1]);
    MPI_Isend(mine, 5, MPI_INT, me, 1, dup, &reqs[2]);
    MPI_Irecv(got, 5, MPI_INT, me, 1, dup, &reqs[3]);
    MPI_Waitall(4, reqs, MPI_STATUSES_IGNORE);
    printf("rank %d: %d\n", rank, got[4]);
    MPI_Comm_free(&dup);
    MPI_Finalize();
    return 0;
}
