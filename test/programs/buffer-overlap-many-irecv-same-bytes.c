/* mpiscope-test
 * ranks: 2
 * expect: buffer-overlap warning lines 24,31
 */
/* Rank 1 posts four receives into one buffer; rank 0 answers all four from one buffer, each send posted while the
 * others are pending (the pattern of MPICH's dtype_send test, in MPI-CorrBench's correct programs). MPI forbids
 * any access to a pending receive's buffer, but every message is a copy of the same bytes and lands alike, so the
 * result does not depend on timing: one warning. The third and fourth receives wait for their messages like the
 * second (they were reported at once as a timing-dependent error). */
#include <mpi.h>
#include <stdio.h>

#define N 4

int main(int argc, char **argv)
{
    int rank, mine[3] = {1, 2, 3}, got[3] = {0, 0, 0};
    MPI_Request reqs[N];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 1) {
        for (int i = 0; i < N; i++)
            MPI_Irecv(got, 3, MPI_INT, 0, 7, MPI_COMM_WORLD, &reqs[i]);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Waitall(N, reqs, MPI_STATUSES_IGNORE);
        printf("%d %d %d\n", got[0], got[1], got[2]);
    } else if (rank == 0) {
        MPI_Barrier(MPI_COMM_WORLD);
        for (int i = 0; i < N; i++)
            MPI_Isend(mine, 3, MPI_INT, 1, 7, MPI_COMM_WORLD, &reqs[i]);
        MPI_Waitall(N, reqs, MPI_STATUSES_IGNORE);
    }
    MPI_Finalize();
    return 0;
}
