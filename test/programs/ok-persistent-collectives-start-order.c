/* mpiscope-test
 * ranks: 2
 * expect: none
 * mpi: mpich
 */
/* Two MPI-4 persistent collectives (MPICH 4 here) initialized in the same order on both ranks, then started in
 * opposite orders: rank 0 starts the sum first, rank 1 the maximum first, and both wait for both. The
 * initializations follow the collective ordering rules; the starts need not, unless the communicator asserts
 * mpi_assert_strict_persistent_collective_ordering (MPI-4.0 §7.4.4), which this one does not: legal. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, v, sum = 0, max = 0;
    MPI_Request reqs[2];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    v = rank + 1;
    MPI_Allreduce_init(&v, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &reqs[0]);
    MPI_Allreduce_init(&v, &max, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD, MPI_INFO_NULL, &reqs[1]);
    for (int step = 0; step < 3; step++) {
        MPI_Start(&reqs[rank == 0 ? 0 : 1]);
        MPI_Start(&reqs[rank == 0 ? 1 : 0]);
        MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
    }
    if (rank == 0)
        printf("sum %d max %d\n", sum, max);
    MPI_Request_free(&reqs[0]);
    MPI_Request_free(&reqs[1]);
    MPI_Finalize();
    return 0;
}
