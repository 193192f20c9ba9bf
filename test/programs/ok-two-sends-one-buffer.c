/* mpiscope-test
 * ranks: 3
 * expect: none
 */
/* Rank 0 sends the same array to two ranks with two pending Isends. Both only read the buffer,
 * so sharing it is allowed (since MPI-3) and is not a buffer overlap. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, data[16];
    MPI_Request reqs[2];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        for (int i = 0; i < 16; i++)
            data[i] = i;
        MPI_Isend(data, 16, MPI_INT, 1, 0, MPI_COMM_WORLD, &reqs[0]);
        MPI_Isend(data, 16, MPI_INT, 2, 0, MPI_COMM_WORLD, &reqs[1]);
        MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
    } else {
        MPI_Recv(data, 16, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return 0;
}
