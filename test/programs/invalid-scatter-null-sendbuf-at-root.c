/* mpiscope-test
 * ranks: 2
 * expect: invalid-argument lines 17
 */
/* The root of a scatter sends one integer to each rank from a NULL buffer (CorrBench's Scatter-SendBuffer). The
 * other rank passes NULL too, which is legal there: a scatter's send buffer is significant at the root only. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, mine = -1;
    const int *all = NULL;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Scatter(all, 1, MPI_INT, &mine, 1, MPI_INT, 0, MPI_COMM_WORLD);
    printf("rank %d got %d\n", rank, mine);
    MPI_Finalize();
    return 0;
}
