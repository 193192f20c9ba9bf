/* mpiscope-test
 * ranks: 3
 * expect: none
 */
/* A nonblocking barrier completed by polling MPI_Test, the building block of termination
 * detection. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int done = 0;
    long polls = 0;
    MPI_Request req;

    MPI_Init(&argc, &argv);
    MPI_Ibarrier(MPI_COMM_WORLD, &req);
    while (!done) {
        polls++;
        MPI_Test(&req, &done, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return polls > 0 ? 0 : 1;
}
