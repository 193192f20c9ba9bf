/* mpiscope-test
 * ranks: 6
 * expect: count-mismatch lines 46
 */
/* A 2-D block decomposition on a 2 x 3 non-periodic Cartesian grid exchanges the edges of its local
 * block with one MPI_Neighbor_alltoallv. The blocks follow the topology's order: per dimension the
 * negative neighbour, then the positive one. Along dimension 0 a rank exchanges a row (NY values),
 * along dimension 1 a column (NX values). The receive counts are written for the wrong dimension
 * order (columns first), so every neighbour sends NY values where NX are expected, or the reverse. */
#include <mpi.h>
#include <stdio.h>

#define NX 4
#define NY 6

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int dims[2] = {2, 3}, periods[2] = {0, 0};
    MPI_Comm grid, halo;
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &grid);
    MPI_Comm_dup(grid, &halo);
    MPI_Comm_rank(halo, &rank);

    double block[NX][NY], edges[2 * NX + 2 * NY], ghost[2 * NX + 2 * NY];
    for (int i = 0; i < NX; i++)
        for (int j = 0; j < NY; j++)
            block[i][j] = rank * 100 + i * NY + j;
    /* Send: top row, bottom row, left column, right column. */
    for (int j = 0; j < NY; j++) {
        edges[j] = block[0][j];
        edges[NY + j] = block[NX - 1][j];
    }
    for (int i = 0; i < NX; i++) {
        edges[2 * NY + i] = block[i][0];
        edges[2 * NY + NX + i] = block[i][NY - 1];
    }
    int scounts[4] = {NY, NY, NX, NX}, sdispls[4] = {0, NY, 2 * NY, 2 * NY + NX};
    int rcounts[4] = {NX, NX, NY, NY}, rdispls[4] = {0, NX, 2 * NX, 2 * NX + NY};

    for (int step = 0; step < 3; step++) {
        for (int k = 0; k < 2 * NX + 2 * NY; k++)
            ghost[k] = -1.0;
        MPI_Neighbor_alltoallv(edges, scounts, sdispls, MPI_DOUBLE, ghost, rcounts, rdispls, MPI_DOUBLE, halo);
    }
    double sum = 0, total = 0;
    for (int k = 0; k < 2 * NX + 2 * NY; k++)
        sum += ghost[k] > 0 ? ghost[k] : 0;
    MPI_Reduce(&sum, &total, 1, MPI_DOUBLE, MPI_SUM, 0, halo);
    if (rank == 0)
        printf("ghost sum %.0f\n", total);
    MPI_Comm_free(&halo);
    MPI_Comm_free(&grid);
    MPI_Finalize();
    return 0;
}
