/* mpiscope-test
 * ranks: 3
 * expect: count-mismatch lines 30
 * mpi: mpich
 */
/* Each rank sums its local histogram into a global one with a persistent MPI_Allreduce_init (MPI-4,
 * MPICH 4 here), started once per batch of samples. The histogram's length is taken from the rank's
 * own data (its largest bin in use) instead of an agreed size, so the ranks pass different counts:
 * the initialization is the collective call whose counts must agree. MPICH reduces anyway, and the
 * bins past the shortest count are garbage on some ranks. */
#include <mpi.h>
#include <stdio.h>

#define MAXBINS 16
#define BATCHES 3

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    long local[MAXBINS] = {0}, global[MAXBINS] = {0};
    int used = 0;
    for (int i = 0; i < 20; i++) {
        int bin = (i * (rank + 3)) % (10 + rank);
        if (bin + 1 > used)
            used = bin + 1;
    }
    MPI_Request sum;
    MPI_Allreduce_init(local, global, used, MPI_LONG, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &sum);
    for (int b = 0; b < BATCHES; b++) {
        for (int i = 0; i < 20; i++)
            local[(i * (rank + 3) + b) % used]++;
        MPI_Start(&sum);
        MPI_Wait(&sum, MPI_STATUS_IGNORE);
    }
    MPI_Request_free(&sum);
    if (rank == 0)
        printf("bin 0: %ld\n", global[0]);
    MPI_Finalize();
    return 0;
}
