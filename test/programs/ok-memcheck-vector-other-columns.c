/* mpiscope-test
 * ranks: 2
 * mode: memcheck
 * expect: none
 */
/* The correct twin of local-concurrency-vector-column.c: while column 2 of the matrix is being received with a
 * vector type, the program updates every other column. Those bytes lie between the column's elements (inside
 * the receive's span) but not in its type map: they are the program's. */
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
                if (j != 2)
                    a[i][j] = i + j;
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        printf("%g %g\n", a[N - 1][2], a[N - 1][3]);
    } else {
        double col[N] = {1, 2, 3, 4, 5, 6};
        MPI_Send(col, N, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD);
    }
    MPI_Type_free(&column);
    MPI_Finalize();
    return 0;
}
