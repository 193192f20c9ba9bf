/* mpiscope-test
 * ranks: 3
 * expect: none
 */
/* The root gathers with MPI_IN_PLACE (its own contribution is already in place in the receive
 * buffer, and its send count and type are ignored); the other ranks send normally. */
#include <mpi.h>
#include <stddef.h>

int main(int argc, char **argv)
{
    int rank, all[3] = {0};

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        all[0] = 100;
        MPI_Gather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all, 1, MPI_INT, 0, MPI_COMM_WORLD);
    } else {
        int mine = 100 + rank;
        MPI_Gather(&mine, 1, MPI_INT, NULL, 0, MPI_DATATYPE_NULL, 0, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
