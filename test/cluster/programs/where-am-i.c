/* The harness's own check, run with plain mpirun/mpiexec/srun (no mpiscope): every rank prints its rank,
 * the size of MPI_COMM_WORLD, the host it runs on, the sum of all ranks (an Allreduce, so the ranks really
 * talk to each other over the emulated network) and the value of each variable named on its command line
 * ("-" when unset), so the test can tell which variables the launcher carried to the rank. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, size, sum, length;
    char host[MPI_MAX_PROCESSOR_NAME];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Get_processor_name(host, &length);
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    printf("rank %d of %d on %s sum %d", rank, size, host, sum);
    for (int i = 1; i < argc; i++) {
        const char *value = getenv(argv[i]);
        printf(" %s=%s", argv[i], value != NULL ? value : "-");
    }
    printf("\n");
    MPI_Finalize();
    return 0;
}
