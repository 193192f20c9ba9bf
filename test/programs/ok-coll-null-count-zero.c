/* mpiscope-test
 * ranks: 2
 * expect: none
 */
/* Collectives that move nothing: NULL buffers with zero counts are legal (point-to-point's rule), in blocking,
 * nonblocking and neighbourhood collectives. (MPICH refuses a send and a receive buffer that are the same
 * pointer in MPI_Alltoallv, NULL and NULL included: one of them is a real array there.) */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size, zeros[2] = {0, 0}, periods[1] = {1}, spare[2];
    MPI_Comm ring;
    MPI_Request req;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Allreduce(NULL, NULL, 0, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Bcast(NULL, 0, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Allgather(NULL, 0, MPI_INT, NULL, 0, MPI_INT, MPI_COMM_WORLD);
    MPI_Alltoallv(NULL, zeros, zeros, MPI_INT, spare, zeros, zeros, MPI_INT, MPI_COMM_WORLD);
    MPI_Reduce_scatter(NULL, spare, zeros, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Ibcast(NULL, 0, MPI_INT, 0, MPI_COMM_WORLD, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Cart_create(MPI_COMM_WORLD, 1, &size, periods, 0, &ring);
    MPI_Neighbor_allgather(NULL, 0, MPI_INT, NULL, 0, MPI_INT, ring);
    MPI_Comm_free(&ring);
    printf("rank %d done\n", rank);
    MPI_Finalize();
    return 0;
}
