/* mpiscope-test
 * ranks: 2
 * expect: none
 * mpi: mpich
 */
/* MPI-4 MPI_Isendrecv between two ranks, completed by MPI_Wait (MPICH 4.0 only: Open MPI 4.1 has no MPI-4
 * calls). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, out, in = -1;
    MPI_Request req;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    out = rank;
    MPI_Isendrecv(&out, 1, MPI_INT, 1 - rank, 0, &in, 1, MPI_INT, 1 - rank, 0, MPI_COMM_WORLD, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Finalize();
    return 0;
}
