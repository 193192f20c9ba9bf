/* mpiscope-test
 * ranks: 3
 * expect: deadlock lines 40,42
 */
/* A ring spread over hosts in which every rank waits for its left neighbour before passing the token on,
 * so nobody starts. Even and odd ranks block on different lines, so that the report must carry each rank's
 * own call site. Each rank prints the host it runs on (stdout) and, right before its blocking call, the
 * wall clock in milliseconds (stderr: "blocking at MS"), from which the test measures the time from the
 * last rank blocking to the report; the hosts are namespaces of one machine, so they share the clock. */
#include <mpi.h>
#include <stdio.h>
#include <time.h>

static void say_blocking(void)
{
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    fprintf(stderr, "blocking at %lld\n", (long long)now.tv_sec * 1000 + now.tv_nsec / 1000000);
    fflush(stderr);
}

int main(int argc, char **argv)
{
    int rank, size, token = 0, length;
    char host[MPI_MAX_PROCESSOR_NAME];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Get_processor_name(host, &length);
    printf("rank %d runs on %s\n", rank, host);
    fflush(stdout);
    int left = (rank + size - 1) % size;
    int right = (rank + 1) % size;

    /* Everyone is up before anyone blocks, so the stamps say when the ring closed, not start-up time. */
    MPI_Barrier(MPI_COMM_WORLD);
    say_blocking();
    if (rank % 2 == 0)
        MPI_Recv(&token, 1, MPI_INT, left, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    else
        MPI_Recv(&token, 1, MPI_INT, left, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    token += 1;
    MPI_Send(&token, 1, MPI_INT, right, 0, MPI_COMM_WORLD);

    MPI_Finalize();
    return 0;
}
