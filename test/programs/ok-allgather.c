/* mpiscope-test
 * ranks: 4
 * expect: none
 */
/* Every rank contributes two ints and receives everybody's. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, mine[2], all[8];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    mine[0] = rank;
    mine[1] = -rank;
    MPI_Allgather(mine, 2, MPI_INT, all, 2, MPI_INT, MPI_COMM_WORLD);
    if (all[6] != 3)
        printf("rank %d: wrong allgather\n", rank);
    MPI_Finalize();
    return 0;
}
