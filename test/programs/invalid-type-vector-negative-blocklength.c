/* mpiscope-test
 * ranks: 1
 * expect: invalid-argument lines 13
 */
/* MPI_Type_vector with a block length of -1 (MPI-3.1 4.1.2: blocklength is a non-negative integer). */
#include <mpi.h>

int main(int argc, char **argv)
{
    MPI_Datatype column;

    MPI_Init(&argc, &argv);
    MPI_Type_vector(4, -1, 4, MPI_INT, &column);
    MPI_Type_commit(&column);
    MPI_Type_free(&column);
    MPI_Finalize();
    return 0;
}
