/* mpiscope-test
 * ranks: 4
 * expect: none
 */
/* A 1-D periodic halo exchange: every step each rank posts both receives and both sends and
 * waits for all four, so no ordering between neighbours is needed. */
#include <mpi.h>

#define N 8
#define STEPS 3

int main(int argc, char **argv)
{
    int rank, size;
    double u[N + 2];
    MPI_Request reqs[4];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int left = (rank + size - 1) % size;
    int right = (rank + 1) % size;
    for (int i = 0; i < N + 2; i++)
        u[i] = rank;

    for (int step = 0; step < STEPS; step++) {
        /* Tag 0 travels rightwards, tag 1 leftwards, so the two halos never get swapped. */
        MPI_Irecv(&u[0], 1, MPI_DOUBLE, left, 0, MPI_COMM_WORLD, &reqs[0]);
        MPI_Irecv(&u[N + 1], 1, MPI_DOUBLE, right, 1, MPI_COMM_WORLD, &reqs[1]);
        MPI_Isend(&u[N], 1, MPI_DOUBLE, right, 0, MPI_COMM_WORLD, &reqs[2]);
        MPI_Isend(&u[1], 1, MPI_DOUBLE, left, 1, MPI_COMM_WORLD, &reqs[3]);
        MPI_Waitall(4, reqs, MPI_STATUSES_IGNORE);
        for (int i = 1; i <= N; i++)
            u[i] = 0.5 * u[i] + 0.25 * (u[i - 1] + u[i + 1]);
    }
    MPI_Finalize();
    return 0;
}
