/* mpiscope-test
 * ranks: 5
 * expect: none
 */
/* A 1-D advection code on a non-periodic chain of ranks: each step shifts a band of values one
 * rank to the right and another band one rank to the left with MPI_Sendrecv, the end ranks
 * talking to MPI_PROC_NULL (the boundary condition is "nothing flows in"). Neighbours come
 * from MPI_Cart_shift on a 1-D non-periodic topology; the in-flow at the ends is checked with
 * the status of the receive from MPI_PROC_NULL. Mass is conserved except what leaves the ends,
 * tallied with MPI_Allreduce every 50 steps. */
#include <mpi.h>
#include <stdio.h>

#define W 64
#define STEPS 300

int main(int argc, char **argv)
{
    int rank, size, dims[1] = {0}, periods[1] = {0}, left, right;
    MPI_Comm chain;
    double band_r[W], band_l[W], in_r[W], in_l[W];

    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Dims_create(size, 1, dims);
    MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &chain);
    MPI_Comm_rank(chain, &rank);
    MPI_Cart_shift(chain, 0, 1, &left, &right);
    for (int i = 0; i < W; i++)
        band_r[i] = band_l[i] = rank == size / 2 ? 1.0 : 0.0;

    double lost = 0.0;
    for (int step = 1; step <= STEPS; step++) {
        MPI_Status st;
        int got;
        MPI_Sendrecv(band_r, W, MPI_DOUBLE, right, 1, in_r, W, MPI_DOUBLE, left, 1, chain, &st);
        MPI_Get_count(&st, MPI_DOUBLE, &got);
        if (st.MPI_SOURCE == MPI_PROC_NULL) {
            /* Nothing came in: the count is 0 and the buffer untouched. */
            for (int i = 0; i < W; i++)
                in_r[i] = 0.0;
            if (got != 0)
                printf("rank %d: %d values from nowhere\n", rank, got);
        }
        MPI_Sendrecv(band_l, W, MPI_DOUBLE, left, 2, in_l, W, MPI_DOUBLE, right, 2, chain, &st);
        if (st.MPI_SOURCE == MPI_PROC_NULL)
            for (int i = 0; i < W; i++)
                in_l[i] = 0.0;
        double out = 0.0;
        for (int i = 0; i < W; i++) {
            if (right == MPI_PROC_NULL)
                out += band_r[i];
            if (left == MPI_PROC_NULL)
                out += band_l[i];
            band_r[i] = in_r[i];
            band_l[i] = in_l[i];
        }
        lost += out;
        if (step % 50 == 0) {
            double total;
            MPI_Allreduce(&lost, &total, 1, MPI_DOUBLE, MPI_SUM, chain);
            if (rank == 0 && step == STEPS)
                printf("chain: %.0f of %d units left through the ends\n", total, 2 * W);
        }
    }
    MPI_Comm_free(&chain);
    MPI_Finalize();
    return 0;
}
