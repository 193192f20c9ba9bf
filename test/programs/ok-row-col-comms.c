/* mpiscope-test
 * ranks: 6
 * expect: none
 */
/* A matrix-vector product y = A x on a 2 x 3 process grid built with MPI_Comm_split: every
 * process owns one block of A. x is broadcast down each column from the grid's first row,
 * the partial products are summed across each row with MPI_Reduce to the row's first column,
 * and the row results are gathered on rank 0 over the first column's communicator. Repeated
 * as a power iteration, the norm from an MPI_Allreduce; rank 0 scatters the next x along the
 * first row (a column count above the row count wraps the vector around). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define B 32 /* block size */
#define PROWS 2
#define ITERS 60
#define MAXCOLS 8

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
    int rank, size, row_rank, col_rank;
    MPI_Comm row, col;
    double a[B][B], x[B], part[B], y[B], all[MAXCOLS * B];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int pcols = size / PROWS;
    int prow = rank / pcols, pcol = rank % pcols;
    MPI_Comm_split(MPI_COMM_WORLD, prow, pcol, &row);
    MPI_Comm_split(MPI_COMM_WORLD, pcol, prow, &col);
    MPI_Comm_rank(row, &row_rank);
    MPI_Comm_rank(col, &col_rank);

    for (int i = 0; i < B; i++) {
        for (int j = 0; j < B; j++)
            a[i][j] = 1.0 / (1.0 + abs(prow * B + i - (pcol * B + j)));
        x[i] = 1.0;
    }

    double lambda = 0.0;
    for (int it = 0; it < ITERS; it++) {
        /* The square system's x block of column c lives on row c % PROWS, column c. */
        MPI_Bcast(x, B, MPI_DOUBLE, 0, col);
        for (int i = 0; i < B; i++) {
            part[i] = 0.0;
            for (int j = 0; j < B; j++)
                part[i] += a[i][j] * x[j];
        }
        MPI_Reduce(part, y, B, MPI_DOUBLE, MPI_SUM, 0, row);
        /* Row leaders hold y's row block; share its squared norm along the first column. */
        double sq = 0.0, norm2 = 0.0;
        if (pcol == 0)
            for (int i = 0; i < B; i++)
                sq += y[i] * y[i];
        MPI_Allreduce(&sq, &norm2, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        lambda = root(norm2);
        if (pcol == 0) {
            for (int i = 0; i < B; i++)
                y[i] /= lambda;
            MPI_Gather(y, B, MPI_DOUBLE, all, B, MPI_DOUBLE, 0, col);
        }
        /* The next x: rank 0 scatters the normalised vector to the first row, one block each. */
        if (rank == 0)
            for (int i = PROWS * B; i < pcols * B; i++)
                all[i] = all[i % (PROWS * B)];
        if (prow == 0) {
            double *src = rank == 0 ? all : NULL;
            MPI_Scatter(src, B, MPI_DOUBLE, x, B, MPI_DOUBLE, 0, row);
        }
    }
    int check = 0;
    MPI_Allreduce(&row_rank, &check, 1, MPI_INT, MPI_MAX, col);
    if (rank == 0)
        printf("power iteration: lambda %.6f after %d iterations (grid %dx%d)\n", lambda, ITERS,
               PROWS, pcols);
    MPI_Comm_free(&row);
    MPI_Comm_free(&col);
    MPI_Finalize();
    return 0;
}
