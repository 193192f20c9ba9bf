/* mpiscope-test
 * ranks: 2
 * expect: none
 */
/* The sender gathers the upper triangle of a 3x3 matrix with an indexed type (6 ints); the
 * receiver packs it densely as 6 ints. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank;
    int lengths[3] = {3, 2, 1}, displs[3] = {0, 4, 8};
    MPI_Datatype upper;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Type_indexed(3, lengths, displs, MPI_INT, &upper);
    MPI_Type_commit(&upper);
    if (rank == 0) {
        int matrix[9] = {1, 2, 3, 0, 5, 6, 0, 0, 9};
        MPI_Send(matrix, 1, upper, 1, 0, MPI_COMM_WORLD);
    } else {
        int packed[6];
        MPI_Recv(packed, 6, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Type_free(&upper);
    MPI_Finalize();
    return 0;
}
