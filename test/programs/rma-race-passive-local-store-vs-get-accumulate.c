/* mpiscope-test
 * ranks: 3
 * mode: memcheck
 * expect: rma-race lines 27,30
 */
/* Rank 1 adds into rank 0's element 3 with MPI_Get_accumulate (and fetches the old value) under an exclusive lock
 * while rank 0 overwrites the element with a plain store: rank 1's exclusive lock does not keep rank 0's own
 * stores out, and nothing orders them. Rank 2 only takes part in the barriers. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank;
    double *base, add[1] = { 1.5 }, got[1] = { 0 };
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_allocate(4 * sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    for (int i = 0; i < 4; i++)
        base[i] = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        for (int i = 0; i < 4; i++)
            if (i == 3)
                base[i] = -1.0;
    } else if (rank == 1) {
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
        MPI_Get_accumulate(add, 1, MPI_DOUBLE, got, 1, MPI_DOUBLE, 0, 3, 1, MPI_DOUBLE, MPI_SUM, win);
        MPI_Win_unlock(0, win);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("%g\n", base[3]);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
