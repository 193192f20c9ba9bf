/* The MPI stress of bench/memory-curve/run.mjs: for SECONDS seconds, every rank exchanges 8 bytes with both
 * neighbours on a ring, nonblocking (Irecv, Irecv, Isend, Isend, Waitall), as fast as MPI allows; every 64
 * iterations rank 0 takes one message from every other rank by MPI_ANY_SOURCE (what the message-race check
 * keeps vector clocks for) and rank 0's clock decides, by an MPI_Bcast, whether to go on. The run's length
 * is set by time, not by iterations, so that the analyzer's memory can be followed over minutes.
 *   stress SECONDS     prints "iterations N" on rank 0 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, size, go = 1;
    long iterations = 0;
    double seconds = argc > 1 ? atof(argv[1]) : 60.0, s = 1.0, r[2];
    MPI_Request req[4];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    double start = MPI_Wtime();
    while (go) {
        MPI_Irecv(&r[0], 1, MPI_DOUBLE, left, 0, MPI_COMM_WORLD, &req[0]);
        MPI_Irecv(&r[1], 1, MPI_DOUBLE, right, 1, MPI_COMM_WORLD, &req[1]);
        MPI_Isend(&s, 1, MPI_DOUBLE, right, 0, MPI_COMM_WORLD, &req[2]);
        MPI_Isend(&s, 1, MPI_DOUBLE, left, 1, MPI_COMM_WORLD, &req[3]);
        MPI_Waitall(4, req, MPI_STATUSES_IGNORE);
        if (++iterations % 64 == 0) {
            if (rank == 0)
                for (int i = 1; i < size; i++)
                    MPI_Recv(&r[0], 1, MPI_DOUBLE, MPI_ANY_SOURCE, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            else
                MPI_Send(&s, 1, MPI_DOUBLE, 0, 2, MPI_COMM_WORLD);
            if (rank == 0) go = MPI_Wtime() - start < seconds;
            MPI_Bcast(&go, 1, MPI_INT, 0, MPI_COMM_WORLD);
        }
    }
    if (rank == 0) printf("iterations %ld\n", iterations);
    MPI_Finalize();
    return 0;
}
