/* mpiscope-test
 * ranks: 4
 * expect: none
 */
/* Rank 0 collects one message from each worker with a Waitsome loop. The receives are posted by
 * one call, with one tag and size, into separate slots: completion order cannot be observed. */
#include <mpi.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, size;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank == 0) {
        int n = size - 1, pending = n, done;
        int *values = calloc(n, sizeof(int)), *indices = calloc(n, sizeof(int));
        MPI_Request *reqs = calloc(n, sizeof(MPI_Request));
        for (int i = 0; i < n; i++)
            MPI_Irecv(&values[i], 1, MPI_INT, i + 1, 0, MPI_COMM_WORLD, &reqs[i]);
        while (pending > 0) {
            MPI_Waitsome(n, reqs, &done, indices, MPI_STATUSES_IGNORE);
            pending -= done;
        }
        free(values);
        free(indices);
        free(reqs);
    } else {
        MPI_Send(&rank, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
