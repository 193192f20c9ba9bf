/* mpiscope-test
 * ranks: 3
 * expect: none
 */
/* The root scatters one int to each rank, every rank doubles it, and the root gathers them back. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, mine, in[3] = {1, 2, 3}, out[3] = {0};

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Scatter(in, 1, MPI_INT, &mine, 1, MPI_INT, 0, MPI_COMM_WORLD);
    mine *= 2;
    MPI_Gather(&mine, 1, MPI_INT, out, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank == 0 && out[2] != 6)
        printf("wrong gather %d\n", out[2]);
    MPI_Finalize();
    return 0;
}
