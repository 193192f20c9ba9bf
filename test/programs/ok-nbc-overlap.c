/* mpiscope-test
 * ranks: 4
 * expect: none
 */
/* A conjugate-gradient-like loop that hides collective latency behind computation: the dot
 * product of each iteration is started with MPI_Iallreduce and completed with MPI_Wait after
 * the local update it does not depend on; every few iterations rank 0 broadcasts new
 * parameters with MPI_Ibcast, polled with MPI_Test while the ranks keep computing, and the
 * residual history is collected with MPI_Igather at the end. Both kinds of requests are in
 * flight at once on one communicator, started in the same order on every rank. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define N 4000
#define ITERS 150
#define PARAMS_EVERY 25

/* Square root by Newton's method (the corpus links without libm). */
static double root(double x)
{
    double r = x > 1.0 ? x : 1.0;
    for (int i = 0; i < 60 && x > 0.0; i++)
        r = 0.5 * (r + x / r);
    return x > 0.0 ? r : 0.0;
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    double *x = malloc(N * sizeof(double)), *r = malloc(N * sizeof(double));
    double history[ITERS], params[4] = {1.0, 0.5, 0.25, 0.125};
    for (int i = 0; i < N; i++) {
        x[i] = 0.0;
        r[i] = 1.0 + (rank * N + i) % 7;
    }

    MPI_Request dot_req, par_req = MPI_REQUEST_NULL;
    for (int it = 0; it < ITERS; it++) {
        double local = 0.0, global = 0.0;
        for (int i = 0; i < N; i++)
            local += r[i] * r[i];
        MPI_Iallreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &dot_req);
        if (it % PARAMS_EVERY == 0) {
            if (rank == 0)
                params[0] = 1.0 / (1.0 + it);
            MPI_Ibcast(params, 4, MPI_DOUBLE, 0, MPI_COMM_WORLD, &par_req);
        }
        /* Work that needs neither the dot product nor the parameters. */
        for (int i = 0; i < N; i++)
            x[i] += 1e-3 * r[i];
        if (par_req != MPI_REQUEST_NULL) {
            int done = 0;
            while (!done) {
                MPI_Test(&par_req, &done, MPI_STATUS_IGNORE);
                x[it % N] += 1e-9;
            }
        }
        MPI_Wait(&dot_req, MPI_STATUS_IGNORE);
        double scale = params[0] * 0.5 / root(global / ((double)N * size));
        for (int i = 0; i < N; i++)
            r[i] *= 1.0 - scale * 0.01;
        history[it] = root(global);
    }

    double *all = rank == 0 ? malloc((size_t)size * ITERS * sizeof(double)) : NULL;
    MPI_Request gather_req;
    MPI_Igather(history, ITERS, MPI_DOUBLE, all, ITERS, MPI_DOUBLE, 0, MPI_COMM_WORLD, &gather_req);
    MPI_Wait(&gather_req, MPI_STATUS_IGNORE);
    if (rank == 0) {
        printf("nbc: residual %.4f -> %.4f\n", all[0], all[ITERS - 1]);
        free(all);
    }
    free(x);
    free(r);
    MPI_Finalize();
    return 0;
}
