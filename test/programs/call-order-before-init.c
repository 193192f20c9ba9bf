/* mpiscope-test
 * ranks: 2
 * expect: call-order lines 14
 */
/* The program asks for the communicator size before MPI_Init. Both Open MPI and MPICH print an
 * error and abort the process on that call, so the run fails; the finding must still come out. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int size = 0;

    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Init(&argc, &argv);
    printf("size %d\n", size);
    MPI_Finalize();
    return 0;
}
