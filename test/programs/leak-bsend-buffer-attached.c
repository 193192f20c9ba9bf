/* mpiscope-test
 * ranks: 2
 * expect: resource-leak lines 19
 */
/* Rank 0 attaches a buffer for MPI_Bsend and never detaches it; detaching is also what
 * guarantees that buffered messages have left it before the memory is reused. */
#include <mpi.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, value = 11;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        int size = 1024 + MPI_BSEND_OVERHEAD;
        void *buffer = malloc(size);
        MPI_Buffer_attach(buffer, size);
        MPI_Bsend(&value, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
    } else {
        MPI_Recv(&value, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return 0;
}
