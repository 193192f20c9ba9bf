/* mpiscope-test
 * ranks: 5
 * expect: none
 */
/* Sparse data exchange with the NBX algorithm (Hoefler et al.): each rank sends a few messages
 * to ranks it picks, without telling the receivers how many to expect. Sends are synchronous
 * (MPI_Issend); a rank probes with MPI_Iprobe(MPI_ANY_SOURCE) and receives from the probed
 * source until all of its own sends were received (MPI_Testall), then enters MPI_Ibarrier and
 * keeps receiving until the barrier completes. Messages are summed per source, so the arrival
 * order does not matter. Repeated over several rounds, one tag per round. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define ROUNDS 12
#define MAXDEST 3
#define LEN 16

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long total = 0, received = 0;
    unsigned seed = 7u + (unsigned)rank;

    for (int round = 0; round < ROUNDS; round++) {
        int ndest = 1 + (int)(rand_r(&seed) % MAXDEST);
        int out[MAXDEST][LEN];
        MPI_Request sends[MAXDEST];
        for (int d = 0; d < ndest; d++) {
            int dest = (rank + 1 + d + round) % size;
            for (int i = 0; i < LEN; i++)
                out[d][i] = rank * 1000 + round * 10 + d;
            MPI_Issend(out[d], LEN, MPI_INT, dest, round, MPI_COMM_WORLD, &sends[d]);
        }
        MPI_Request barrier = MPI_REQUEST_NULL;
        int done = 0, barrier_active = 0;
        while (!done) {
            int flag;
            MPI_Status st;
            MPI_Iprobe(MPI_ANY_SOURCE, round, MPI_COMM_WORLD, &flag, &st);
            if (flag) {
                int in[LEN];
                MPI_Recv(in, LEN, MPI_INT, st.MPI_SOURCE, round, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                for (int i = 0; i < LEN; i++)
                    total += in[i];
                received++;
            }
            if (barrier_active) {
                MPI_Test(&barrier, &done, MPI_STATUS_IGNORE);
            } else {
                int sent;
                MPI_Testall(ndest, sends, &sent, MPI_STATUSES_IGNORE);
                if (sent) {
                    MPI_Ibarrier(MPI_COMM_WORLD, &barrier);
                    barrier_active = 1;
                }
            }
        }
    }
    long all[2] = {total, received}, sum[2];
    MPI_Reduce(all, sum, 2, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("nbx: %ld messages, checksum %ld\n", sum[1], sum[0]);
    MPI_Finalize();
    return 0;
}
