/* mpiscope-test
 * ranks: 2
 * expect: none
 */
/* An int and a double packed into one MPI_PACKED message and unpacked on the other side. MPI_PACKED
 * on both ends matches, whatever was packed. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, n = 4, position = 0;
    double x = 2.5;
    char buffer[64];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Pack(&n, 1, MPI_INT, buffer, sizeof buffer, &position, MPI_COMM_WORLD);
        MPI_Pack(&x, 1, MPI_DOUBLE, buffer, sizeof buffer, &position, MPI_COMM_WORLD);
        MPI_Send(buffer, position, MPI_PACKED, 1, 0, MPI_COMM_WORLD);
    } else {
        MPI_Recv(buffer, sizeof buffer, MPI_PACKED, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Unpack(buffer, sizeof buffer, &position, &n, 1, MPI_INT, MPI_COMM_WORLD);
        MPI_Unpack(buffer, sizeof buffer, &position, &x, 1, MPI_DOUBLE, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
