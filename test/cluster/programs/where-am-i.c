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
    /* One write per rank: the launcher forwards each rank's output as it comes, so a line printed in
     * pieces can be cut by another rank's line. */
    char line[4096];
    int n = snprintf(line, sizeof line, "rank %d of %d on %s sum %d", rank, size, host, sum);
    for (int i = 1; i < argc && n < (int)sizeof line; i++) {
        const char *value = getenv(argv[i]);
        n += snprintf(line + n, sizeof line - n, " %s=%s", argv[i], value != NULL ? value : "-");
    }
    printf("%s\n", line);
    fflush(stdout);
    MPI_Finalize();
    return 0;
}
