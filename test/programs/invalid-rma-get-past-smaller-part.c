/* mpiscope-test
 * ranks: 3
 * expect: invalid-argument error lines 39
 */
/* Each rank allocates its part of a window with MPI_Win_allocate, sized from a length it was meant to
 * receive from rank 0 before the allocation. Rank 0 sends it to rank 1 only (the loop's bound is off by
 * one), so rank 2 keeps its default of 16 elements and allocates a small part, while ranks 0 and 1 hold
 * 1,024 doubles. Rank 0 then reads the middle of every other rank's part: on rank 2 the MPI_Get reaches
 * past its part of the window. Open MPI fails it (MPI_ERR_RMA_RANGE, returned here: the window's errors
 * return); MPICH on one host does not check, and reads whatever memory lies there. The origin's own part
 * is large enough, so only the target's size tells. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size, n = 16;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank == 0) {
        n = 1024;
        for (int r = 1; r < size - 1; r++)
            MPI_Send(&n, 1, MPI_INT, r, 0, MPI_COMM_WORLD);
    } else if (rank < size - 1) {
        MPI_Recv(&n, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    double *part;
    MPI_Win win;
    MPI_Win_allocate((MPI_Aint)n * sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &part, &win);
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    for (int i = 0; i < n; i++)
        part[i] = rank + i;
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        for (int r = 1; r < size; r++) {
            double mid = -1;
            MPI_Win_lock(MPI_LOCK_SHARED, r, 0, win);
            MPI_Get(&mid, 1, MPI_DOUBLE, r, 512, 1, MPI_DOUBLE, win);
            MPI_Win_unlock(r, win);
            printf("rank %d: %g\n", r, mid);
        }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
