/* mpiscope-test
 * ranks: 2
 * expect: invalid-argument error lines 28
 * mpi: mpich
 */
/* Rank 1 frees a request variable holding bits no call returned (an uninitialized variable's leftovers). The shim
 * cannot tell such bits from a request without a table of every request (a cost at every call); MPICH checks
 * them and fails the call, and mpiscope then names the argument: a request handle this rank was never given.
 * Open MPI's requests are addresses, which it follows without a check (the rank dies of SIGSEGV), hence MPICH
 * only. The bytes are 0xa5: a word whose top bits are 01 is one of MPICH's builtin requests, which the shim reports
 * as a request made complete. The errors return so that the job goes on. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    int rank, v = 7;
    MPI_Request req;

    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    memset(&req, 0xa5, sizeof req);
    MPI_Bcast(&v, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank == 1) {
        int rc;
        rc = MPI_Request_free(&req);
        if (rc == MPI_SUCCESS)
            printf("the library accepted it\n");
    }
    MPI_Finalize();
    return 0;
}
