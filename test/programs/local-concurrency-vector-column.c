/* mpiscope-test
 * ranks: 2
 * mode: memcheck
 * expect: local-concurrency lines 26,29
 */
/* A column of a row-major matrix is received with a vector type; the program then updates the whole matrix,
 * that column included, before the Wait. Only the column's bytes are owned: the store that hits it is reported
 * (ok-memcheck-vector-other-columns.c updates only the other columns and stays silent). */
#include <mpi.h>
#include <stdio.h>

#define N 6

int main(int argc, char **argv)
{
    int rank;
    double a[N][N];
    MPI_Datatype column;
    MPI_Request req;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Type_vector(N, 1, N, MPI_DOUBLE, &column);
    MPI_Type_commit(&column);
    if (rank == 0) {
        MPI_Irecv(&a[0][2], 1, column, 1, 0, MPI_COMM_WORLD, &req);
        for (int i = 0; i < N; i++)
            for (int j = 0; j < N; j++)
                a[i][j] = i + j;
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        printf("%g\n", a[N - 1][2]);
    } else {
        double col[N] = {1, 2, 3, 4, 5, 6};
        MPI_Send(col, N, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD);
    }
    MPI_Type_free(&column);
    MPI_Finalize();
    return 0;
}
