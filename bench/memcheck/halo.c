/* 2-D Jacobi halo exchange, the memcheck mode's benchmark kernel. Each rank owns an N×N block (plus one ghost
 * layer) of a 2-D Cartesian grid; per iteration it posts the four ghost receives and the four edge sends (rows
 * contiguous, columns with a vector type), updates the interior while they are pending (the edges are read,
 * which MPI allows), waits, then updates the border cells. Correct: the memcheck mode must find nothing, and
 * every access to u is inside the span of some pending operation, the slow path's worst case.
 * Prints the seconds of the iteration loop (the slowest rank's) and a checksum.
 * Usage: halo [N] [ITERS] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int n = argc > 1 ? atoi(argv[1]) : 256, iters = argc > 2 ? atoi(argv[2]) : 200;
    int size, rank, dims[2] = {0, 0}, periods[2] = {0, 0};
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Dims_create(size, 2, dims);
    MPI_Comm cart;
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
    MPI_Comm_rank(cart, &rank);
    int up, down, left, right;
    MPI_Cart_shift(cart, 0, 1, &up, &down);
    MPI_Cart_shift(cart, 1, 1, &left, &right);
    int w = n + 2;
    double *u = calloc((size_t)w * w, sizeof *u), *v = calloc((size_t)w * w, sizeof *v);
    for (int i = 1; i <= n; i++)
        for (int j = 1; j <= n; j++)
            u[i * w + j] = rank + 0.001 * (i + j);
    MPI_Datatype col;
    MPI_Type_vector(n, 1, w, MPI_DOUBLE, &col);
    MPI_Type_commit(&col);
    MPI_Barrier(cart);
    double t0 = MPI_Wtime();
    for (int it = 0; it < iters; it++) {
        MPI_Request r[8];
        MPI_Irecv(&u[0 * w + 1], n, MPI_DOUBLE, up, 0, cart, &r[0]);
        MPI_Irecv(&u[(n + 1) * w + 1], n, MPI_DOUBLE, down, 1, cart, &r[1]);
        MPI_Irecv(&u[1 * w + 0], 1, col, left, 2, cart, &r[2]);
        MPI_Irecv(&u[1 * w + n + 1], 1, col, right, 3, cart, &r[3]);
        MPI_Isend(&u[1 * w + 1], n, MPI_DOUBLE, up, 1, cart, &r[4]);
        MPI_Isend(&u[n * w + 1], n, MPI_DOUBLE, down, 0, cart, &r[5]);
        MPI_Isend(&u[1 * w + 1], 1, col, left, 3, cart, &r[6]);
        MPI_Isend(&u[1 * w + n], 1, col, right, 2, cart, &r[7]);
        for (int i = 2; i < n; i++)
            for (int j = 2; j < n; j++)
                v[i * w + j] = 0.25 * (u[(i - 1) * w + j] + u[(i + 1) * w + j] + u[i * w + j - 1] + u[i * w + j + 1]);
        MPI_Waitall(8, r, MPI_STATUSES_IGNORE);
        for (int k = 1; k <= n; k++) {
            int cells[4][2] = {{1, k}, {n, k}, {k, 1}, {k, n}};
            for (int c = 0; c < 4; c++) {
                int i = cells[c][0], j = cells[c][1];
                v[i * w + j] = 0.25 * (u[(i - 1) * w + j] + u[(i + 1) * w + j] + u[i * w + j - 1] + u[i * w + j + 1]);
            }
        }
        double *t = u;
        u = v;
        v = t;
    }
    double dt = MPI_Wtime() - t0, slowest = 0, sum = 0, total = 0;
    for (int i = 1; i <= n; i++)
        for (int j = 1; j <= n; j++)
            sum += u[i * w + j];
    MPI_Reduce(&dt, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, cart);
    MPI_Reduce(&sum, &total, 1, MPI_DOUBLE, MPI_SUM, 0, cart);
    if (rank == 0)
        printf("loop %.6f s checksum %.6e\n", slowest, total);
    MPI_Type_free(&col);
    MPI_Comm_free(&cart);
    free(u);
    free(v);
    MPI_Finalize();
    return 0;
}
