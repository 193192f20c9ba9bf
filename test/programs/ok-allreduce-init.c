/* mpiscope-test
 * ranks: 2
 * expect: none
 * mpi: mpich
 */
/* An MPI-4 persistent MPI_Allreduce_init started three times and freed (MPICH 4.0 only). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, mine, sum;
    MPI_Request req;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Allreduce_init(&mine, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &req);
    for (int i = 0; i < 3; i++) {
        mine = rank + i;
        MPI_Start(&req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    }
    MPI_Request_free(&req);
    MPI_Finalize();
    return 0;
}
