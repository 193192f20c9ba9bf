/* mpiscope-test
 * ranks: 2
 * expect: type-mismatch lines 18
 */
/* Every rank sends one int to a root that gathers one double from each. The counts agree (one element);
 * the types do not, so the bytes differ too: the bug is the type, and it is reported as one. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, mine;
    double all[2] = {0, 0};

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    mine = rank + 1;
    MPI_Gather(&mine, 1, MPI_INT, all, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (rank == 0) printf("gathered %g %g\n", all[0], all[1]);
    MPI_Finalize();
    return 0;
}
