/* mpiscope-test
 * ranks: 2
 * mode: memcheck
 * expect: local-concurrency lines 21,22
 */
/* A default value is copied into the receive buffer with memcpy after the receive was posted: a library call's
 * store is found as well as a plain one (the wrapper routes the program's memcpy through the runtime). */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    int rank;
    char name[32], fallback[32] = "unknown";
    MPI_Request req;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Irecv(name, 32, MPI_CHAR, 1, 0, MPI_COMM_WORLD, &req);
        memcpy(name, fallback, sizeof fallback);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        printf("%s\n", name);
    } else {
        char msg[32] = "rank one";
        MPI_Send(msg, 32, MPI_CHAR, 0, 0, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
