/* mpiscope-test
 * ranks: 1
 * expect: invalid-argument warning lines 15
 */
/* MPI_Buffer_detach with no buffer attached (a warning: MPIs return an empty buffer or an error). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    void *old;
    int size;
    MPI_Init(&argc, &argv);
    MPI_Buffer_detach(&old, &size);
    MPI_Finalize();
    return 0;
}
