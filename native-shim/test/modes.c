/* Ways a rank can end or misbehave, chosen by argv[1], for checking the shim by hand (run-modes.sh):
 * finalize, crash (SIGSEGV), exit (no MPI_Finalize), abort, badcount (negative count: a FINDING before MPI
 * aborts), modified (send buffer written while an Isend is pending), long (many calls, for pause/continue
 * and for an analyzer that goes away). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "finalize";
    int rank, size, buf[256] = { 0 };
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Barrier(MPI_COMM_WORLD);
    if (!strcmp(mode, "crash") && rank == 1) {
        volatile int *p = NULL;
        *p = 1;
    }
    if (!strcmp(mode, "exit")) exit(3);
    if (!strcmp(mode, "abort") && rank == 0) MPI_Abort(MPI_COMM_WORLD, 42);
    if (!strcmp(mode, "badcount") && rank == 0) MPI_Send(buf, -1, MPI_INT, 1, 0, MPI_COMM_WORLD);
    if (!strcmp(mode, "modified")) {
        MPI_Request r[2];
        int in[256];
        MPI_Irecv(in, 256, MPI_INT, (rank + 1) % size, 0, MPI_COMM_WORLD, &r[0]);
        MPI_Isend(buf, 256, MPI_INT, (rank + 1) % size, 0, MPI_COMM_WORLD, &r[1]);
        buf[3] = 7; /* the bug: the send may still read buf */
        MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
    }
    if (!strcmp(mode, "long")) {
        for (int i = 0; i < 200000; i++) MPI_Allreduce(MPI_IN_PLACE, buf, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    if (rank == 0) printf("modes %s done\n", mode);
    return 0;
}
