/* mpiscope-test
 * ranks: 2
 * expect: none
 */
/* Three "points" of three doubles each are sent with a contiguous type and received as nine
 * doubles: (double x 3) x 3 is the same signature as double x 9. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank;
    double points[9] = {0};
    MPI_Datatype point;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Type_contiguous(3, MPI_DOUBLE, &point);
    MPI_Type_commit(&point);
    if (rank == 0)
        MPI_Send(points, 3, point, 1, 0, MPI_COMM_WORLD);
    else
        MPI_Recv(points, 9, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Type_free(&point);
    MPI_Finalize();
    return 0;
}
