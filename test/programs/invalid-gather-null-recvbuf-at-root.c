/* mpiscope-test
 * ranks: 2
 * expect: invalid-argument lines 19
 */
/* The root of a gather receives two integers into a NULL buffer (CorrBench's Gather-RecvBuffer-2). MPI does not
 * check it and writes through the pointer, so the root dies in the call: the shim's finding is sent before. The
 * non-root's NULL receive buffer is legal: MPI ignores it there. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, mine;
    int *all = NULL;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    mine = rank;
    MPI_Gather(&mine, 1, MPI_INT, all, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
