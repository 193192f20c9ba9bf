/* mpiscope-test
 * ranks: 3
 * expect: none
 */
/* A transpose: rank i sends element j to rank j and receives element i of every rank. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, out[3], in[3];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int j = 0; j < 3; j++)
        out[j] = 10 * rank + j;
    MPI_Alltoall(out, 1, MPI_INT, in, 1, MPI_INT, MPI_COMM_WORLD);
    if (in[2] != 20 + rank)
        printf("rank %d: wrong transpose\n", rank);
    MPI_Finalize();
    return 0;
}
