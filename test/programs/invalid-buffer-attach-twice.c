/* mpiscope-test
 * ranks: 1
 * expect: invalid-argument lines 17
 */
/* A second MPI_Buffer_attach while a buffer is attached: MPI allows one attached buffer per process. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    static char first[1024], second[1024];
    void *old;
    int size;
    MPI_Init(&argc, &argv);
    MPI_Buffer_attach(first, sizeof first);
    MPI_Buffer_attach(second, sizeof second);
    MPI_Buffer_detach(&old, &size);
    MPI_Finalize();
    return 0;
}
