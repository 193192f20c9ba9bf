/* mpiscope-test
 * ranks: 3
 * expect: type-mismatch lines 18,20
 */
/* The root broadcasts ints and the other ranks receive floats: a type mismatch inside a
 * collective, reported once with every rank's call. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank;
    int ints[4] = {1, 2, 3, 4};
    float floats[4];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        MPI_Bcast(ints, 4, MPI_INT, 0, MPI_COMM_WORLD);
    else
        MPI_Bcast(floats, 4, MPI_FLOAT, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
