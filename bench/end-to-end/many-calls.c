/* A corpus-like MPI program with many calls, for bench/end-to-end/run.mjs.
 * many-calls ITERATIONS          ping-pong, a nonblocking exchange and an allreduce per iteration
 * many-calls ITERATIONS deadlock the same, then every rank receives from its neighbour and hangs; each rank
 *                                prints "blocking at <CLOCK_REALTIME ns>" right before its last call.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int main(int argc, char **argv)
{
    int rank, size, i, iterations = argc > 1 ? atoi(argv[1]) : 10000;
    int deadlock = argc > 2 && strcmp(argv[2], "deadlock") == 0;
    double a = 1.0, b = 0.0, sum;
    MPI_Request req[2];
    struct timespec ts;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    for (i = 0; i < iterations; i++) {
        if (rank == 0) {
            MPI_Send(&a, 1, MPI_DOUBLE, right, 1, MPI_COMM_WORLD);
            MPI_Recv(&b, 1, MPI_DOUBLE, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(&b, 1, MPI_DOUBLE, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(&b, 1, MPI_DOUBLE, right, 1, MPI_COMM_WORLD);
        }
        MPI_Irecv(&b, 1, MPI_DOUBLE, left, 2, MPI_COMM_WORLD, &req[0]);
        MPI_Isend(&a, 1, MPI_DOUBLE, right, 2, MPI_COMM_WORLD, &req[1]);
        MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
        if (i % 100 == 0) MPI_Allreduce(&a, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }
    if (deadlock) {
        clock_gettime(CLOCK_REALTIME, &ts);
        fprintf(stderr, "blocking at %lld\n", (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec);
        fflush(stderr);
        MPI_Recv(&b, 1, MPI_DOUBLE, left, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return 0;
}
