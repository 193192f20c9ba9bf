/* mpiscope-test
 * ranks: 2
 * expect: invalid-argument lines 24
 */
/* Rank 1 receives up to two doubles into a one-double variable on its stack. The message that comes is one
 * double, so nothing is overwritten in this run, but a longer message would write past the variable: the
 * receive's count is wrong for its buffer whatever arrives. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        double x = 2.5;
        MPI_Send(&x, 1, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD);
    } else {
        double one;
        int n = 0;
        MPI_Status st;
        MPI_Recv(&one, 2, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, &st);
        MPI_Get_count(&st, MPI_DOUBLE, &n);
        printf("received %d double: %g\n", n, one);
    }
    MPI_Finalize();
    return 0;
}
