/* mpiscope-test
 * ranks: 3
 * expect: buffer-overlap lines 17,18
 */
/* Rank 0 receives five ints from each of ranks 1 and 2 into slices of one array that overlap in
 * elements 3 and 4: which value ends up there depends on which message lands last. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, data[8] = {0}, mine[5];
    MPI_Request reqs[2];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Irecv(&data[0], 5, MPI_INT, 1, 0, MPI_COMM_WORLD, &reqs[0]);
        MPI_Irecv(&data[3], 5, MPI_INT, 2, 0, MPI_COMM_WORLD, &reqs[1]);
        MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
    } else {
        for (int i = 0; i < 5; i++)
            mine[i] = rank;
        MPI_Send(mine, 5, MPI_INT, 0, 0, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
