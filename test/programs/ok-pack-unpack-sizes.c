/* mpiscope-test
 * ranks: 2
 * expect: none
 */
/* An int and a double packed into one buffer, sent as MPI_PACKED and unpacked; sizes from MPI_Pack_size. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, n = 7, size_i, size_d, position = 0;
    double x = 2.5;
    char buf[64];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Pack_size(1, MPI_INT, MPI_COMM_WORLD, &size_i);
    MPI_Pack_size(1, MPI_DOUBLE, MPI_COMM_WORLD, &size_d);
    if (rank == 0) {
        MPI_Pack(&n, 1, MPI_INT, buf, sizeof buf, &position, MPI_COMM_WORLD);
        MPI_Pack(&x, 1, MPI_DOUBLE, buf, sizeof buf, &position, MPI_COMM_WORLD);
        MPI_Send(buf, position, MPI_PACKED, 1, 0, MPI_COMM_WORLD);
    } else if (rank == 1) {
        MPI_Recv(buf, sizeof buf, MPI_PACKED, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Unpack(buf, sizeof buf, &position, &n, 1, MPI_INT, MPI_COMM_WORLD);
        MPI_Unpack(buf, sizeof buf, &position, &x, 1, MPI_DOUBLE, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
