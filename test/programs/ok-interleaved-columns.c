/* mpiscope-test
 * ranks: 2
 * expect: none
 */
/* Rank 1 receives two columns of one matrix at once, each an MPI_Type_vector; the columns'
 * extents interleave (each spans almost the whole matrix) but they share no byte, so the two
 * pending receives do not overlap. */
#include <mpi.h>

#define ROWS 6
#define COLS 4

int main(int argc, char **argv)
{
    int rank;
    double m[ROWS][COLS] = {{0}};
    MPI_Datatype column;
    MPI_Request reqs[2];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Type_vector(ROWS, 1, COLS, MPI_DOUBLE, &column);
    MPI_Type_commit(&column);
    if (rank == 0) {
        MPI_Send(&m[0][0], 1, column, 1, 0, MPI_COMM_WORLD);
        MPI_Send(&m[0][1], 1, column, 1, 1, MPI_COMM_WORLD);
    } else {
        MPI_Irecv(&m[0][0], 1, column, 0, 0, MPI_COMM_WORLD, &reqs[0]);
        MPI_Irecv(&m[0][1], 1, column, 0, 1, MPI_COMM_WORLD, &reqs[1]);
        MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
    }
    MPI_Type_free(&column);
    MPI_Finalize();
    return 0;
}
