/* mpiscope-test
 * ranks: 3
 * expect: none
 */
/* Rank 0 receives from two ranks into the two halves of one array at the same time. The ranges
 * touch but do not overlap, so this is not a buffer overlap. */
#include <mpi.h>

#define HALF 8

int main(int argc, char **argv)
{
    int rank, data[2 * HALF], mine[HALF];
    MPI_Request reqs[2];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Irecv(&data[0], HALF, MPI_INT, 1, 0, MPI_COMM_WORLD, &reqs[0]);
        MPI_Irecv(&data[HALF], HALF, MPI_INT, 2, 0, MPI_COMM_WORLD, &reqs[1]);
        MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
    } else {
        for (int i = 0; i < HALF; i++)
            mine[i] = rank;
        MPI_Send(mine, HALF, MPI_INT, 0, 0, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
