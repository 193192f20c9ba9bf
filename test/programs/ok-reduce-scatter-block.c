/* mpiscope-test
 * ranks: 3
 * expect: none
 */
/* Element-wise sum of a 3-element vector, each rank keeping the one element it owns. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, v[3] = {1, 2, 3}, mine = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Reduce_scatter_block(v, &mine, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (mine != 3 * (rank + 1))
        printf("rank %d: got %d\n", rank, mine);
    MPI_Finalize();
    return 0;
}
