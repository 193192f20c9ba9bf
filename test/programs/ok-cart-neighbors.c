/* mpiscope-test
 * ranks: 4
 * expect: none
 */
/* A 2x2 periodic grid: coordinates, shifts, a sub-grid and a neighbourhood all-to-all, everything freed. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int dims[2] = {0, 0}, periods[2] = {1, 1}, remain[2] = {1, 0}, coords[2], rank, src, dst, crank;
    int sendbuf[4], recvbuf[4];
    MPI_Comm cart, row;
    MPI_Init(&argc, &argv);
    MPI_Dims_create(4, 2, dims);
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 1, &cart);
    MPI_Comm_rank(cart, &rank);
    MPI_Cart_coords(cart, rank, 2, coords);
    MPI_Cart_rank(cart, coords, &crank);
    MPI_Cart_shift(cart, 0, 1, &src, &dst);
    for (int i = 0; i < 4; i++)
        sendbuf[i] = rank;
    MPI_Neighbor_alltoall(sendbuf, 1, MPI_INT, recvbuf, 1, MPI_INT, cart);
    MPI_Cart_sub(cart, remain, &row);
    MPI_Comm_free(&row);
    MPI_Comm_free(&cart);
    MPI_Finalize();
    return 0;
}
