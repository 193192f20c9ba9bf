/* mpiscope-test
 * ranks: 2
 * expect: invalid-argument lines 19
 */
/* Every rank passes -1 as the send count of MPI_Allgather (CorrBench's Allgather-Count-3). Both libraries check
 * it before communicating; MPI_ERRORS_RETURN lets every rank go on. The negative count is the finding, not a
 * disagreement of the amounts that it would also make. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, mine, all[4] = {0};

    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    mine = rank;
    int rc = MPI_Allgather(&mine, -1, MPI_INT, all, 2, MPI_INT, MPI_COMM_WORLD);
    if (rc == MPI_SUCCESS)
        printf("rank %d: the library accepted it\n", rank);
    MPI_Finalize();
    return 0;
}
