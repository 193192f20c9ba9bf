/* mpiscope-test
 * ranks: 2
 * expect: none
 */
/* The sender picks a column of a 4x4 matrix with a vector type; the receiver takes it as four
 * plain ints. The handles differ but both signatures are (int x 4): a correct match. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank;
    MPI_Datatype column;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Type_vector(4, 1, 4, MPI_INT, &column);
    MPI_Type_commit(&column);
    if (rank == 0) {
        int matrix[4][4];
        for (int i = 0; i < 16; i++)
            matrix[i / 4][i % 4] = i;
        MPI_Send(&matrix[0][1], 1, column, 1, 0, MPI_COMM_WORLD);
    } else {
        int col[4];
        MPI_Recv(col, 4, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (col[0] != 1 || col[3] != 13)
            printf("wrong column %d %d\n", col[0], col[3]);
    }
    MPI_Type_free(&column);
    MPI_Finalize();
    return 0;
}
