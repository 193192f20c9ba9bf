/* mpiscope-test
 * ranks: 2
 * mode: memcheck
 * expect: none
 */
/* A receive polled with MPI_Test while other memory is worked on; its buffer is read only once the Test said
 * it completed. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, in[4] = {0}, work[128];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Request req;
        int done = 0, spins = 0;
        MPI_Irecv(in, 4, MPI_INT, 1, 0, MPI_COMM_WORLD, &req);
        while (!done) {
            work[spins % 128] = spins;
            spins++;
            MPI_Test(&req, &done, MPI_STATUS_IGNORE);
        }
        printf("%d %d\n", in[3], work[0]);
    } else {
        int out[4] = {1, 2, 3, 4};
        MPI_Send(out, 4, MPI_INT, 0, 0, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
