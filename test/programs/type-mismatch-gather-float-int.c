/* mpiscope-test
 * ranks: 3
 * expect: type-mismatch lines 20
 */
/* Every rank contributes one value to the root's array of ints, but rank 1 sends its value as a float.
 * Both are 4 bytes, so no library notices; the root reads the float's bits as an int. All ranks call
 * Gather from one line. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, mine, all[8];
    float f;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    mine = rank * 10;
    f = (float)mine;
    MPI_Gather(rank == 1 ? (void *)&f : (void *)&mine, 1, rank == 1 ? MPI_FLOAT : MPI_INT, all, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank == 0) printf("gathered %d %d %d\n", all[0], all[1], all[2]);
    MPI_Finalize();
    return 0;
}
