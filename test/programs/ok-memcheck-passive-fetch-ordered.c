/* mpiscope-test
 * ranks: 2
 * mode: memcheck
 * expect: none
 */
/* A correct twin of rma-race-passive-local-store-vs-get-accumulate.c: rank 1 adds into rank 0's element 3 with
 * MPI_Get_accumulate while rank 0 stores only into elements 0-2 of its window; rank 0 overwrites element 3 after
 * the message rank 1 sends once its unlock completed the accumulate at rank 0. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, token = 0;
    double *base, add[1] = { 1.5 }, got[1] = { 0 };
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_allocate(4 * sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    for (int i = 0; i < 4; i++)
        base[i] = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        for (int i = 0; i < 3; i++)
            base[i] = i;
        MPI_Recv(&token, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        base[3] = -1.0;
        printf("%g\n", base[3]);
    } else {
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
        MPI_Get_accumulate(add, 1, MPI_DOUBLE, got, 1, MPI_DOUBLE, 0, 3, 1, MPI_DOUBLE, MPI_SUM, win);
        MPI_Win_unlock(0, win);
        MPI_Send(&token, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    }
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
