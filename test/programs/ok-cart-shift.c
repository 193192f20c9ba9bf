/* mpiscope-test
 * ranks: 4
 * expect: none
 */
/* A 2x2 periodic Cartesian grid: neighbours come from MPI_Cart_shift and each rank exchanges with
 * both neighbours of each dimension through Sendrecv. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, dims[2] = {2, 2}, periods[2] = {1, 1};
    MPI_Comm grid;

    MPI_Init(&argc, &argv);
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &grid);
    MPI_Comm_rank(grid, &rank);
    for (int dim = 0; dim < 2; dim++) {
        int src, dst, in;
        MPI_Cart_shift(grid, dim, 1, &src, &dst);
        MPI_Sendrecv(&rank, 1, MPI_INT, dst, dim, &in, 1, MPI_INT, src, dim, grid, MPI_STATUS_IGNORE);
    }
    MPI_Comm_free(&grid);
    MPI_Finalize();
    return 0;
}
