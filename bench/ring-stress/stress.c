/* The call-rate stress of bench/ring-stress/run.mjs: every rank exchanges 8 bytes with both neighbours on a
 * ring, nonblocking (Irecv, Irecv, Isend, Isend, Waitall), ITERATIONS times, as fast as MPI allows. Under
 * mpiscope this makes records faster than the analyzer takes them, so the ranks' rings fill: the records
 * must all arrive all the same (none lost), at some cost in wall time.
 *   stress ITERATIONS   prints "calls N" (MPI calls per rank) on rank 0 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, size, iterations = argc > 1 ? atoi(argv[1]) : 20000;
    double s = 1.0, r[2];
    MPI_Request req[4];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    for (int i = 0; i < iterations; i++) {
        MPI_Irecv(&r[0], 1, MPI_DOUBLE, left, 0, MPI_COMM_WORLD, &req[0]);
        MPI_Irecv(&r[1], 1, MPI_DOUBLE, right, 1, MPI_COMM_WORLD, &req[1]);
        MPI_Isend(&s, 1, MPI_DOUBLE, right, 0, MPI_COMM_WORLD, &req[2]);
        MPI_Isend(&s, 1, MPI_DOUBLE, left, 1, MPI_COMM_WORLD, &req[3]);
        MPI_Waitall(4, req, MPI_STATUSES_IGNORE);
    }
    if (rank == 0) printf("calls %d\n", 5 * iterations + 3);
    MPI_Finalize();
    return 0;
}
