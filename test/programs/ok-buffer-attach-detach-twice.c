/* mpiscope-test
 * ranks: 2
 * expect: none
 */
/* Attach, buffered send, detach, and the same again: one buffer at a time. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    static char space[MPI_BSEND_OVERHEAD + 64];
    void *old;
    int rank, size, v = 1;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int round = 0; round < 2; round++) {
        MPI_Buffer_attach(space, sizeof space);
        if (rank == 0)
            MPI_Bsend(&v, 1, MPI_INT, 1, round, MPI_COMM_WORLD);
        else
            MPI_Recv(&v, 1, MPI_INT, 0, round, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Buffer_detach(&old, &size);
    }
    MPI_Finalize();
    return 0;
}
