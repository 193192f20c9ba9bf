/* mpiscope-test
 * ranks: 3
 * mode: memcheck
 * expect: none
 */
/* A 1-D halo exchange that overlaps communication with computation done right: while the ghost cells are being
 * received and the edge cells sent, the interior (adjacent memory, the same array) is updated; the edges are
 * read (allowed while they are being sent) and the ghosts are touched only after the Waitall. */
#include <mpi.h>
#include <stdio.h>

#define N 64

int main(int argc, char **argv)
{
    int rank, size;
    double u[N + 2], v[N + 2];
    MPI_Request req[4];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int left = rank > 0 ? rank - 1 : MPI_PROC_NULL, right = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
    for (int i = 0; i < N + 2; i++)
        u[i] = v[i] = rank;
    for (int it = 0; it < 10; it++) {
        MPI_Irecv(&u[0], 1, MPI_DOUBLE, left, 0, MPI_COMM_WORLD, &req[0]);
        MPI_Irecv(&u[N + 1], 1, MPI_DOUBLE, right, 1, MPI_COMM_WORLD, &req[1]);
        MPI_Isend(&u[1], 1, MPI_DOUBLE, left, 1, MPI_COMM_WORLD, &req[2]);
        MPI_Isend(&u[N], 1, MPI_DOUBLE, right, 0, MPI_COMM_WORLD, &req[3]);
        for (int i = 2; i < N; i++)
            v[i] = 0.5 * (u[i - 1] + u[i + 1]);
        MPI_Waitall(4, req, MPI_STATUSES_IGNORE);
        v[1] = 0.5 * (u[0] + u[2]);
        v[N] = 0.5 * (u[N - 1] + u[N + 1]);
        for (int i = 1; i <= N; i++)
            u[i] = v[i];
    }
    printf("%g\n", u[N / 2]);
    MPI_Finalize();
    return 0;
}
