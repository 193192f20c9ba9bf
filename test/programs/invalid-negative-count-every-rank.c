/* mpiscope-test
 * ranks: 4
 * expect: invalid-argument lines 23 ranks 0,1,2,3
 */
/* Every rank sends with a negative count, at the same call site (to MPI_PROC_NULL: nothing is sent, whether MPI
 * checks the count or not). MPI_ERRORS_RETURN keeps MPI from ending the job at the first rank's call, and each rank
 * comes to it later than the one before, after the analyzer has taken the earlier ranks' findings: the one finding
 * names all four ranks, not only the rank whose stream came first. */
#include <mpi.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int rank, x = 1;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    /* Later ranks come later: each waits a little and makes a call, so its stream moves on meanwhile. */
    for (int r = 0; r < rank; r++) {
        usleep(200000);
        MPI_Barrier(MPI_COMM_SELF);
    }
    MPI_Send(&x, -1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
