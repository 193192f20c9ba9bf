/* mpiscope-test
 * ranks: 2
 * expect: invalid-argument lines 20
 */
/* Rank 1 starts a nonblocking alltoall of one integer per rank into a NULL receive buffer: the nonblocking
 * collectives get the blocking ones' checks, at the call that starts them. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, mine[2], all[2];
    MPI_Request req;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    mine[0] = mine[1] = rank;
    int *recv = rank == 1 ? NULL : all;
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Ialltoall(mine, 1, MPI_INT, recv, 1, MPI_INT, MPI_COMM_WORLD, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Finalize();
    return 0;
}
