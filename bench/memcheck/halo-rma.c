/* 1-D Jacobi halo exchange through passive-target one-sided communication, the memcheck mode's benchmark of
 * window memory outside fence and exposure epochs. Each rank owns N rows of N doubles (plus two ghost rows) in a
 * window made by MPI_Win_allocate, and holds one MPI_Win_lock_all epoch for the whole loop. Per iteration it puts
 * its first and last rows into its neighbours' ghost rows, flushes, meets them in a barrier, updates a second
 * array from the window memory, copies it back and meets them in a second barrier, so that no put lands while
 * the rank reads or writes the rows it touches. Correct: the memcheck mode must find nothing, and every load and
 * store of the grid is a load or store of window memory the mode watches for passive-target races (the slow
 * path's worst case for a window). Prints the seconds of the iteration loop (the slowest rank's) and a checksum.
 * Usage: halo-rma [N] [ITERS] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int n = argc > 1 ? atoi(argv[1]) : 256, iters = argc > 2 ? atoi(argv[2]) : 200;
    int size, rank;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int up = rank > 0 ? rank - 1 : MPI_PROC_NULL, down = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
    int w = n + 2;
    double *u, *v = calloc((size_t)(n + 2) * w, sizeof *v);
    MPI_Win win;
    MPI_Win_allocate((MPI_Aint)(n + 2) * w * sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &u, &win);
    for (int i = 0; i < n + 2; i++)
        for (int j = 0; j < w; j++)
            u[i * w + j] = i >= 1 && i <= n && j >= 1 && j <= n ? rank + 0.001 * (i + j) : 0.0;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    MPI_Win_lock_all(0, win);
    for (int it = 0; it < iters; it++) {
        /* My first row is the ghost row below the upper neighbour's last; my last row the one above the lower's. */
        MPI_Put(&u[1 * w], w, MPI_DOUBLE, up, (MPI_Aint)(n + 1) * w, w, MPI_DOUBLE, win);
        MPI_Put(&u[n * w], w, MPI_DOUBLE, down, 0, w, MPI_DOUBLE, win);
        MPI_Win_flush_all(win);
        MPI_Barrier(MPI_COMM_WORLD);
        for (int i = 1; i <= n; i++)
            for (int j = 1; j <= n; j++)
                v[i * w + j] = 0.25 * (u[(i - 1) * w + j] + u[(i + 1) * w + j] + u[i * w + j - 1] + u[i * w + j + 1]);
        for (int i = 1; i <= n; i++)
            for (int j = 1; j <= n; j++)
                u[i * w + j] = v[i * w + j];
        MPI_Barrier(MPI_COMM_WORLD);
    }
    MPI_Win_unlock_all(win);
    double dt = MPI_Wtime() - t0, slowest = 0, sum = 0, total = 0;
    for (int i = 1; i <= n; i++)
        for (int j = 1; j <= n; j++)
            sum += u[i * w + j];
    MPI_Reduce(&dt, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(&sum, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("loop %.6f s checksum %.6e\n", slowest, total);
    MPI_Win_free(&win);
    free(v);
    MPI_Finalize();
    return 0;
}
