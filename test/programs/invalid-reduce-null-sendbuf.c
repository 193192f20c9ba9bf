/* mpiscope-test
 * ranks: 2
 * expect: invalid-argument lines 20
 */
/* Rank 1 gives MPI_Reduce a NULL send buffer for one integer (CorrBench's Reduce-SendBuffer); the root's send
 * buffer is a real one. A send buffer is significant on every member, the root's receive buffer at the root
 * only. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, mine, sum = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    mine = rank + 1;
    const int *send = rank == 1 ? NULL : &mine;
    int *recv = rank == 0 ? &sum : NULL;
    MPI_Reduce(send, recv, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("sum %d\n", sum);
    MPI_Finalize();
    return 0;
}
