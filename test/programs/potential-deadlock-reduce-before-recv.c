/* mpiscope-test
 * ranks: 2
 * expect: potential-deadlock warning lines 19,22
 */
/* Rank 0 contributes to a reduction rooted at rank 1 and then sends rank 1 a token; rank 1 receives the token
 * before it joins the reduction. A non-root rank of MPI_Reduce may return as soon as its contribution is on its
 * way, so the run completes; where MPI_Reduce synchronizes (another library, an algorithm that needs the root,
 * larger data) rank 0 waits in MPI_Reduce for rank 1 and rank 1 waits in MPI_Recv for rank 0. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, v = 1, sum = 0, token = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    v = rank + 1;
    if (rank == 0) {
        MPI_Reduce(&v, &sum, 1, MPI_INT, MPI_SUM, 1, MPI_COMM_WORLD);
        MPI_Send(&token, 1, MPI_INT, 1, 5, MPI_COMM_WORLD);
    } else {
        MPI_Recv(&token, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Reduce(&v, &sum, 1, MPI_INT, MPI_SUM, 1, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
