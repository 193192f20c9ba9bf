/* mpiscope-test
 * ranks: 4
 * expect: resource-leak lines 50
 */
/* The exchange of ok-waitany-testsome-exchange.c (MPI_Waitsome instead of the polling loop),
 * changed to complete each round's sends late, at the start of the next round (just before
 * their buffer is refilled), to overlap them with the processing. The sends of the last round
 * are never completed: their requests are still allocated at MPI_Finalize. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define BATCH 128
#define ROUNDS 40

static double work(const double *v, int n)
{
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += v[i] * v[i];
    return s;
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int peers = size - 1;
    double *out = malloc((size_t)BATCH * peers * sizeof(double));
    double *in = malloc((size_t)BATCH * peers * sizeof(double));
    MPI_Request *rreq = malloc(peers * sizeof(MPI_Request));
    MPI_Request *sreq = malloc(peers * sizeof(MPI_Request));
    int *idx = malloc(peers * sizeof(int));
    double *energy = calloc(size, sizeof(double));

    for (int round = 0; round < ROUNDS; round++) {
        if (round > 0)
            MPI_Waitall(peers, sreq, MPI_STATUSES_IGNORE);
        for (int p = 0; p < peers; p++) {
            int peer = (rank + 1 + p) % size;
            for (int i = 0; i < BATCH; i++)
                out[p * BATCH + i] = rank + 0.001 * i + round;
            MPI_Irecv(&in[p * BATCH], BATCH, MPI_DOUBLE, peer, round, MPI_COMM_WORLD, &rreq[p]);
        }
        for (int p = 0; p < peers; p++) {
            /* Send to the peer that receives from me in slot p: rank - 1 - p. */
            int peer = (rank + size - 1 - p) % size;
            MPI_Isend(&out[p * BATCH], BATCH, MPI_DOUBLE, peer, round, MPI_COMM_WORLD, &sreq[p]);
        }
        int left = peers;
        if (round % 2 == 0) {
            while (left > 0) {
                int k;
                MPI_Waitany(peers, rreq, &k, MPI_STATUS_IGNORE);
                energy[(rank + 1 + k) % size] += work(&in[k * BATCH], BATCH);
                left--;
            }
        } else {
            while (left > 0) {
                int got;
                MPI_Waitsome(peers, rreq, &got, idx, MPI_STATUSES_IGNORE);
                for (int j = 0; j < got; j++) {
                    int k = idx[j];
                    energy[(rank + 1 + k) % size] += work(&in[k * BATCH], BATCH);
                }
                left -= got;
            }
        }
    }
    double mine = 0.0, total = 0.0;
    for (int r = 0; r < size; r++)
        mine += energy[r];
    MPI_Reduce(&mine, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("exchange: total energy %.3f\n", total);
    free(out);
    free(in);
    free(rreq);
    free(sreq);
    free(idx);
    free(energy);
    MPI_Finalize();
    return 0;
}
