/* mpiscope-test
 * ranks: 2
 * expect: type-mismatch lines 20,23
 */
/* Rank 0 sends two doubles and rank 1 receives two floats. The counts agree; the types do not, and the
 * library reports the doubles' 16 bytes as a truncation of the 8 the floats hold (MPI_ERRORS_RETURN makes it
 * a return code): the bug to fix is the receive's type, not its count. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank;

    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        double d[2] = {1.5, 2.5};
        MPI_Send(d, 2, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD);
    } else {
        float f[4];
        int rc = MPI_Recv(f, 2, MPI_FLOAT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (rc == MPI_SUCCESS) printf("received %g\n", f[0]);
    }
    MPI_Finalize();
    return 0;
}
