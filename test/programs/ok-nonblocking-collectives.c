/* mpiscope-test
 * ranks: 3
 * expect: none
 */
/* Three nonblocking collectives in flight at once, started in the same order on every rank and
 * completed together. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size, root_value, sum;
    MPI_Request reqs[3];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    root_value = rank == 0 ? 42 : 0;
    MPI_Ibcast(&root_value, 1, MPI_INT, 0, MPI_COMM_WORLD, &reqs[0]);
    MPI_Iallreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &reqs[1]);
    MPI_Ibarrier(MPI_COMM_WORLD, &reqs[2]);
    MPI_Waitall(3, reqs, MPI_STATUSES_IGNORE);
    if (root_value != 42 || sum != size * (size - 1) / 2)
        printf("rank %d: wrong results %d %d\n", rank, root_value, sum);
    MPI_Finalize();
    return 0;
}
