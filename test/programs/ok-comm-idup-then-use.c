/* mpiscope-test
 * ranks: 2
 * expect: none
 */
/* A communicator made by MPI_Comm_idup exists only once its request completes (the shim describes it then, in
 * a COMM record, at the MPI_Wait): messages on it match, and freeing it leaves no leak. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank;
    double out = 1, in = 0;
    MPI_Comm dup;
    MPI_Request r;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_idup(MPI_COMM_WORLD, &dup, &r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    MPI_Sendrecv(&out, 1, MPI_DOUBLE, 1 - rank, 3, &in, 1, MPI_DOUBLE, 1 - rank, 3, dup, MPI_STATUS_IGNORE);
    MPI_Comm_free(&dup);
    MPI_Finalize();
    return 0;
}
