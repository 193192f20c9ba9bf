/* mpiscope-test
 * ranks: 2
 * expect: type-mismatch lines 21,24
 */
/* The sender picks every other int of an array with a vector type (two ints, eight bytes); the
 * receiver expects one double. Derived types are compared by their signature: (int, int) is not
 * (double). */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank;
    MPI_Datatype every_other;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Type_vector(2, 1, 2, MPI_INT, &every_other);
    MPI_Type_commit(&every_other);
    if (rank == 0) {
        int data[4] = {1, 2, 3, 4};
        MPI_Send(data, 1, every_other, 1, 0, MPI_COMM_WORLD);
    } else {
        double x;
        MPI_Recv(&x, 1, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Type_free(&every_other);
    MPI_Finalize();
    return 0;
}
