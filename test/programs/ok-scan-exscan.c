/* mpiscope-test
 * ranks: 4
 * expect: none
 */
/* Inclusive and exclusive prefix sums: the usual way to compute each rank's offset into a global
 * array. Exscan leaves rank 0's result undefined, so rank 0 does not read it. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, n, inclusive, offset = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    n = rank + 1;
    MPI_Scan(&n, &inclusive, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Exscan(&n, &offset, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank > 0 && offset + n != inclusive)
        printf("rank %d: prefix sums disagree\n", rank);
    MPI_Finalize();
    return 0;
}
