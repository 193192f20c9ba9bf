/* mpiscope-test
 * ranks: 2
 * expect: send-buffer-modified lines 22
 */
/* Rank 0 keeps 6,000 sends pending at once, more than the first level of the shim's table of pending sends
 * holds (4,096 slots), and overwrites the buffer of the last one before its Waitall. The table grows: that send
 * is summed and the write found, as with one pending send (send-buffer-modified-isend.c). */
#include <mpi.h>
#include <stdlib.h>

#define N 6000

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int *data = malloc(N * sizeof *data);
    MPI_Request *reqs = malloc(N * sizeof *reqs);
    for (int i = 0; i < N; i++) data[i] = i;
    if (rank == 0) {
        for (int i = 0; i < N; i++) MPI_Isend(&data[i], 1, MPI_INT, 1, i, MPI_COMM_WORLD, &reqs[i]);
        data[N - 1] = -1; /* too early: the last send owns its element until the Waitall returns */
        MPI_Waitall(N, reqs, MPI_STATUSES_IGNORE);
    } else {
        for (int i = 0; i < N; i++) MPI_Irecv(&data[i], 1, MPI_INT, 0, i, MPI_COMM_WORLD, &reqs[i]);
        MPI_Waitall(N, reqs, MPI_STATUSES_IGNORE);
    }
    free(reqs);
    free(data);
    MPI_Finalize();
    return 0;
}
