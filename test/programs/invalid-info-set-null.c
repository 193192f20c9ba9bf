/* mpiscope-test
 * ranks: 1
 * expect: invalid-argument lines 13
 */
/* MPI_Info_set on MPI_INFO_NULL. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Info_set(MPI_INFO_NULL, "striping_factor", "4");
    MPI_Finalize();
    return 0;
}
