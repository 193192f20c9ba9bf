/* mpiscope-test
 * ranks: 4
 * expect: none
 */
/* MPI_Reduce_scatter on an intercommunicator of rank 0 (alone in its group) and ranks 1-3: each group passes
 * recvcounts with one entry per member of its own group (MPI-3.1 §5.10.1), so rank 0 passes one entry and the
 * others three, with other values; each group's send vectors hold as many elements as the sum of its counts. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int wrank, rank, size, rsize, i, total = 0;
    MPI_Comm local, inter;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_split(MPI_COMM_WORLD, wrank == 0, wrank, &local);
    MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, wrank == 0 ? 1 : 0, 7, &inter);
    MPI_Comm_rank(inter, &rank);
    MPI_Comm_size(inter, &size);
    MPI_Comm_remote_size(inter, &rsize);
    int *counts = malloc(size * sizeof(int));
    for (i = 0; i < size; i++) total += counts[i] = size == 1 ? 6 : 2;
    long *send = malloc(total * sizeof(long)), *recv = malloc(counts[rank] * sizeof(long));
    for (i = 0; i < total; i++) send[i] = wrank + i;
    MPI_Reduce_scatter(send, recv, counts, MPI_LONG, MPI_SUM, inter);
    if (recv[0] < 0) printf("rank %d: %ld\n", wrank, recv[0]);
    free(send);
    free(recv);
    free(counts);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&local);
    MPI_Finalize();
    return 0;
}
