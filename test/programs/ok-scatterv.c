/* mpiscope-test
 * ranks: 3
 * expect: none
 */
/* The root hands rank r a slice of r+1 ints; each rank's receive count is exactly its slice. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, all[6] = {0, 1, 2, 3, 4, 5}, mine[3];
    int counts[3] = {1, 2, 3}, displs[3] = {0, 1, 3};

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Scatterv(all, counts, displs, MPI_INT, mine, rank + 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
