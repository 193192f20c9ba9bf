/* mpiscope-test
 * ranks: 2
 * expect: none
 */
/* The 4 MB exchange of deadlock-send-send-large.c done right: rank 0 sends first, rank 1 receives
 * first, so the rendezvous always finds its receive. */
#include <mpi.h>
#include <stdlib.h>

#define COUNT (512 * 1024)

int main(int argc, char **argv)
{
    int rank;
    double *out = calloc(COUNT, sizeof(double));
    double *in = calloc(COUNT, sizeof(double));

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Send(out, COUNT, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD);
        MPI_Recv(in, COUNT, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
        MPI_Recv(in, COUNT, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(out, COUNT, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    free(out);
    free(in);
    return 0;
}
