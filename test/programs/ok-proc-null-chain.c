/* mpiscope-test
 * ranks: 4
 * expect: none
 */
/* A non-periodic chain: the end ranks use MPI_PROC_NULL as their missing neighbour, so the same
 * Sendrecv line works on every rank and the calls towards MPI_PROC_NULL complete at once. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, size, from_left = -1, from_right = -1;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int left = rank > 0 ? rank - 1 : MPI_PROC_NULL;
    int right = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;

    MPI_Sendrecv(&rank, 1, MPI_INT, right, 0, &from_left, 1, MPI_INT, left, 0, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    MPI_Sendrecv(&rank, 1, MPI_INT, left, 1, &from_right, 1, MPI_INT, right, 1, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    MPI_Send(&rank, 1, MPI_INT, MPI_PROC_NULL, 2, MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
