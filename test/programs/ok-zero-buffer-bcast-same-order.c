/* mpiscope-test
 * ranks: 2
 * expect: none
 */
/* The correct twin of potential-deadlock-bcast-order-two-comms.c: every rank broadcasts on MPI_COMM_WORLD
 * first and on the duplicate second. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, a = 0, b = 0;
    MPI_Comm dup;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    if (rank == 0) {
        a = 1;
        b = 2;
    }
    MPI_Bcast(&a, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Bcast(&b, 1, MPI_INT, 0, dup);
    MPI_Comm_free(&dup);
    MPI_Finalize();
    return 0;
}
