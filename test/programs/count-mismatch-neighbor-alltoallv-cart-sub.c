/* mpiscope-test
 * ranks: 6
 * expect: count-mismatch lines 31
 * expect: count-mismatch lines 31
 */
/* A 2 x 3 non-periodic grid is split into its rows with MPI_Cart_sub, and each row exchanges halos with one
 * MPI_Neighbor_alltoallv. A rank sends (its place in the row + 1) values to each neighbour, so it receives `me`
 * values from its left neighbour and `me + 2` from its right one; the receive counts take the right one's for
 * both, so every rank expects more than its left neighbour sends: one finding per row. MPI_Cart_sub's arguments
 * do not name the neighbours: the shim asks MPI for them. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int dims[2] = {2, 3}, periods[2] = {0, 0}, keep[2] = {0, 1};
    MPI_Comm grid, row;
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &grid);
    MPI_Cart_sub(grid, keep, &row);
    int me;
    MPI_Comm_rank(row, &me);

    int out[8], in[8];
    for (int k = 0; k < 8; k++) {
        out[k] = me * 10 + k;
        in[k] = -1;
    }
    int scounts[2] = {me + 1, me + 1}, sdispls[2] = {0, 4};
    int rcounts[2] = {me + 2, me + 2}, rdispls[2] = {0, 4}; /* wrong: {me, me + 2} */
    MPI_Neighbor_alltoallv(out, scounts, sdispls, MPI_INT, in, rcounts, rdispls, MPI_INT, row);
    int sum = 0, total = 0;
    for (int k = 0; k < 8; k++)
        sum += in[k] > 0 ? in[k] : 0;
    MPI_Allreduce(&sum, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (me == 0)
        printf("halo sum %d\n", total);
    MPI_Comm_free(&row);
    MPI_Comm_free(&grid);
    MPI_Finalize();
    return 0;
}
