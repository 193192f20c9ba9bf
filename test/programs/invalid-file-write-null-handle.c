/* mpiscope-test
 * ranks: 1
 * expect: invalid-argument lines 14
 */
/* MPI_File_write on MPI_FILE_NULL (file calls return errors by default, so the program goes on). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int v = 1;
    MPI_Init(&argc, &argv);
    MPI_File_write(MPI_FILE_NULL, &v, 1, MPI_INT, MPI_STATUS_IGNORE);
    MPI_Finalize();
    return 0;
}
