/* mpiscope-test
 * ranks: 2
 * mode: memcheck
 * expect: none
 */
/* Reading a send buffer while the send is pending is allowed (MPI-3.1 3.7.2): the program sums what it sends. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, data[64];
    MPI_Request req;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        for (int i = 0; i < 64; i++)
            data[i] = i;
        MPI_Isend(data, 64, MPI_INT, 1, 0, MPI_COMM_WORLD, &req);
        long sum = 0;
        for (int i = 0; i < 64; i++)
            sum += data[i];
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        data[0] = -1; /* after the Wait: the buffer is the program's again */
        printf("%ld\n", sum);
    } else {
        MPI_Recv(data, 64, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return 0;
}
