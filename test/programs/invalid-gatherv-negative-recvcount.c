/* mpiscope-test
 * ranks: 2
 * expect: invalid-argument lines 21
 */
/* The root of MPI_Gatherv expects -1 integers from rank 1: a negative entry of recvcounts (the v-variants' count
 * arrays are judged entry by entry). Both libraries check it at the root; MPI_ERRORS_RETURN lets the root go on,
 * and rank 1's one-integer message is small enough to leave without it. The negative count is the finding, not
 * the disagreement with rank 1's sendcount that it also makes. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, mine, all[2] = {0, 0};
    int counts[2] = {1, -1}, displs[2] = {0, 1};

    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    mine = rank;
    int rc = MPI_Gatherv(&mine, 1, MPI_INT, all, counts, displs, MPI_INT, 0, MPI_COMM_WORLD);
    if (rc != MPI_SUCCESS)
        printf("rank %d: the library refused it\n", rank);
    MPI_Finalize();
    return 0;
}
