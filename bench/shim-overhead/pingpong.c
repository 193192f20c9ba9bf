/* Per-call cost microbenchmark for the shim: 2 ranks, small messages.
 * Prints "NAME NS_PER_ITERATION CALLS_PER_ITERATION" per kernel (rank 0), the best of 5 repetitions. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define REPS 5

static double best(double a, double b) { return a < b ? a : b; }

int main(int argc, char **argv)
{
    int rank, iters = argc > 1 ? atoi(argv[1]) : 20000;
    char sbuf[64] = { 0 }, rbuf[64];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int peer = 1 - rank;
    double t_pp = 1e30, t_nb = 1e30, t_q = 1e30;
    for (int rep = 0; rep < REPS; rep++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        for (int i = 0; i < iters; i++) {
            if (rank == 0) {
                MPI_Send(sbuf, 8, MPI_CHAR, peer, 0, MPI_COMM_WORLD);
                MPI_Recv(rbuf, 8, MPI_CHAR, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(rbuf, 8, MPI_CHAR, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(sbuf, 8, MPI_CHAR, peer, 0, MPI_COMM_WORLD);
            }
        }
        t_pp = best(t_pp, (MPI_Wtime() - t0) / iters);

        MPI_Barrier(MPI_COMM_WORLD);
        t0 = MPI_Wtime();
        for (int i = 0; i < iters; i++) {
            MPI_Request r[2];
            MPI_Irecv(rbuf, 8, MPI_CHAR, peer, 1, MPI_COMM_WORLD, &r[0]);
            MPI_Isend(sbuf, 8, MPI_CHAR, peer, 1, MPI_COMM_WORLD, &r[1]);
            MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
        }
        t_nb = best(t_nb, (MPI_Wtime() - t0) / iters);

        /* A call that does almost nothing inside MPI: the shim's own cost shows plainly. */
        int q;
        t0 = MPI_Wtime();
        for (int i = 0; i < iters; i++) MPI_Comm_rank(MPI_COMM_WORLD, &q);
        t_q = best(t_q, (MPI_Wtime() - t0) / iters);
    }
    if (rank == 0) {
        printf("2ranks-pingpong %.1f 2\n", t_pp * 1e9);
        printf("2ranks-irecv-isend-waitall %.1f 3\n", t_nb * 1e9);
        printf("2ranks-comm_rank %.1f 1\n", t_q * 1e9);
    }
    MPI_Finalize();
    return 0;
}
