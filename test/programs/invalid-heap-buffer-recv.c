/* mpiscope-test
 * ranks: 2
 * expect: invalid-argument lines 27
 */
/* Rank 1 receives up to ten ints into a malloc'd block of four. The message that comes is two ints, so nothing
 * is overwritten in this run, but a longer message would write past the block: the receive's count is wrong for
 * its buffer whatever arrives. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int *buf = malloc(4 * sizeof(int));
    buf[0] = buf[1] = buf[2] = buf[3] = rank;
    if (rank == 0) {
        MPI_Send(buf, 2, MPI_INT, 1, 0, MPI_COMM_WORLD);
    } else {
        int n = 0;
        MPI_Status st;
        /* Wrong: count 10 for a buffer of 4. */
        for (int i = 0; i < 1; i++)
            MPI_Recv(buf, 10, MPI_INT, 0, 0, MPI_COMM_WORLD, &st);
        MPI_Get_count(&st, MPI_INT, &n);
        printf("received %d ints: %d %d\n", n, buf[0], buf[1]);
    }
    free(buf);
    MPI_Finalize();
    return 0;
}
