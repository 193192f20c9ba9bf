/* mpiscope-test
 * ranks: 3
 * expect: none
 */
/* Every rank joins a gather at rank 0 first; rank 0 then sends each rank a reply, which each receives after
 * the gather: the same calls in the same order on every rank, so nothing depends on buffering. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, size, v, all[3] = {0, 0, 0}, reply = 0, r;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    v = rank * rank;
    MPI_Gather(&v, 1, MPI_INT, all, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        for (r = 1; r < size; r++) {
            reply = all[r] + 1;
            MPI_Send(&reply, 1, MPI_INT, r, 6, MPI_COMM_WORLD);
        }
    } else {
        MPI_Recv(&reply, 1, MPI_INT, 0, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return 0;
}
