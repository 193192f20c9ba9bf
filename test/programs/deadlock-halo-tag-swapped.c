/* mpiscope-test
 * ranks: 4
 * expect: deadlock lines 38
 * expect: message-mismatch error lines 32,37
 */
/* The 2-D Jacobi solver of ok-jacobi-cart-2d.c with a copy-paste slip: the column sent east
 * carries TAG_WEST, so the east neighbour's receive from the west (TAG_EAST) never matches it
 * and every rank with an east or west neighbour waits forever in MPI_Waitall. On 2 ranks
 * (a 2 x 1 grid, no columns to exchange) it runs to the end; on 4 (2 x 2) it hangs in the
 * first step. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define NX 24 /* interior points per rank in x (columns) */
#define NY 20 /* interior points per rank in y (rows) */
#define MAX_STEPS 400
#define CHECK_EVERY 10
#define TOL 1e-4

#define AT(a, i, j) ((a)[(size_t)(i) * (NX + 2) + (j)])

enum { TAG_NORTH = 10, TAG_SOUTH, TAG_WEST, TAG_EAST };

static void exchange(double *u, MPI_Comm cart, MPI_Datatype column, int north, int south,
                     int west, int east)
{
    MPI_Request reqs[8];
    /* A message travelling south carries TAG_SOUTH; the receiver takes it from its north. */
    MPI_Irecv(&AT(u, 0, 1), NX, MPI_DOUBLE, north, TAG_SOUTH, cart, &reqs[0]);
    MPI_Irecv(&AT(u, NY + 1, 1), NX, MPI_DOUBLE, south, TAG_NORTH, cart, &reqs[1]);
    MPI_Irecv(&AT(u, 1, 0), 1, column, west, TAG_EAST, cart, &reqs[2]);
    MPI_Irecv(&AT(u, 1, NX + 1), 1, column, east, TAG_WEST, cart, &reqs[3]);
    MPI_Isend(&AT(u, 1, 1), NX, MPI_DOUBLE, north, TAG_NORTH, cart, &reqs[4]);
    MPI_Isend(&AT(u, NY, 1), NX, MPI_DOUBLE, south, TAG_SOUTH, cart, &reqs[5]);
    MPI_Isend(&AT(u, 1, 1), 1, column, west, TAG_WEST, cart, &reqs[6]);
    MPI_Isend(&AT(u, 1, NX), 1, column, east, TAG_WEST, cart, &reqs[7]);
    MPI_Waitall(8, reqs, MPI_STATUSES_IGNORE);
}

int main(int argc, char **argv)
{
    int size, rank, dims[2] = {0, 0}, periods[2] = {0, 0}, coords[2];
    int north, south, west, east;
    MPI_Comm cart;
    MPI_Datatype column;

    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Dims_create(size, 2, dims);
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 1, &cart);
    MPI_Comm_rank(cart, &rank);
    MPI_Cart_coords(cart, rank, 2, coords);
    MPI_Cart_shift(cart, 0, 1, &north, &south);
    MPI_Cart_shift(cart, 1, 1, &west, &east);

    /* One interior column: NY doubles, one per row of the padded array. */
    MPI_Type_vector(NY, 1, NX + 2, MPI_DOUBLE, &column);
    MPI_Type_commit(&column);

    double *u = calloc((size_t)(NX + 2) * (NY + 2), sizeof(double));
    double *v = calloc((size_t)(NX + 2) * (NY + 2), sizeof(double));
    /* Hot top edge of the global domain. */
    if (coords[0] == 0)
        for (int j = 0; j < NX + 2; j++)
            AT(u, 0, j) = AT(v, 0, j) = 100.0;

    int step;
    double diff = 0.0;
    for (step = 1; step <= MAX_STEPS; step++) {
        exchange(u, cart, column, north, south, west, east);
        double local = 0.0;
        for (int i = 1; i <= NY; i++)
            for (int j = 1; j <= NX; j++) {
                AT(v, i, j) = 0.25 * (AT(u, i - 1, j) + AT(u, i + 1, j) + AT(u, i, j - 1) +
                                      AT(u, i, j + 1));
                double d = AT(v, i, j) - AT(u, i, j);
                if (d < 0)
                    d = -d;
                if (d > local)
                    local = d;
            }
        double *t = u;
        u = v;
        v = t;
        if (step % CHECK_EVERY == 0) {
            MPI_Allreduce(&local, &diff, 1, MPI_DOUBLE, MPI_MAX, cart);
            if (diff < TOL)
                break;
        }
    }

    double sum = 0.0, total;
    for (int i = 1; i <= NY; i++)
        for (int j = 1; j <= NX; j++)
            sum += AT(u, i, j);
    MPI_Reduce(&sum, &total, 1, MPI_DOUBLE, MPI_SUM, 0, cart);
    if (rank == 0)
        printf("jacobi: %d steps, last change %.2e, heat %.3f\n", step, diff, total);

    free(u);
    free(v);
    MPI_Type_free(&column);
    MPI_Comm_free(&cart);
    MPI_Finalize();
    return 0;
}
