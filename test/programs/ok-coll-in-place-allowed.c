/* mpiscope-test
 * ranks: 2
 * expect: none
 */
/* MPI_IN_PLACE wherever the standard allows it: the receive buffer of a scatter and the send buffer of a gather
 * or a reduce at the root (the others pass real buffers), and the send buffer of the unrooted exchanges and
 * reductions on every rank, blocking and nonblocking. The counts and type that MPI_IN_PLACE replaces are not
 * judged (Allgather's sendcount -1 below). */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, all[2], pair[2], v, counts[2] = {1, 1}, displs[2] = {0, 1};
    MPI_Request req;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int root = rank == 0;
    all[0] = 10, all[1] = 11, v = rank + 1;
    MPI_Scatter(all, 1, MPI_INT, root ? MPI_IN_PLACE : &v, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Gatherv(root ? MPI_IN_PLACE : &v, 1, MPI_INT, all, counts, displs, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Reduce(root ? MPI_IN_PLACE : &v, root ? &v : NULL, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    pair[0] = pair[1] = rank;
    MPI_Allgather(MPI_IN_PLACE, -1, MPI_DATATYPE_NULL, pair, 1, MPI_INT, MPI_COMM_WORLD);
    MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, pair, 1, MPI_INT, MPI_COMM_WORLD);
    MPI_Reduce_scatter_block(MPI_IN_PLACE, pair, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Scan(MPI_IN_PLACE, &v, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Iallreduce(MPI_IN_PLACE, &v, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    printf("rank %d: %d %d %d\n", rank, pair[0], pair[1], v);
    MPI_Finalize();
    return 0;
}
