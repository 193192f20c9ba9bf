/* mpiscope-test
 * ranks: 1
 * expect: invalid-argument lines 12
 */
/* MPI_Type_contiguous with NULL where MPI stores the new datatype. */
#include <mpi.h>
#include <stddef.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Type_contiguous(4, MPI_INT, NULL);
    MPI_Finalize();
    return 0;
}
