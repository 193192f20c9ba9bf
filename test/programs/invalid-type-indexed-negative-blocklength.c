/* mpiscope-test
 * ranks: 1
 * expect: invalid-argument lines 14
 */
/* MPI_Type_indexed whose second block length is -2. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int lengths[3] = { 1, -2, 1 }, displs[3] = { 0, 2, 4 };
    MPI_Datatype picks;

    MPI_Init(&argc, &argv);
    MPI_Type_indexed(3, lengths, displs, MPI_INT, &picks);
    MPI_Type_commit(&picks);
    MPI_Type_free(&picks);
    MPI_Finalize();
    return 0;
}
