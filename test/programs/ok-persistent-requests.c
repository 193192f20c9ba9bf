/* mpiscope-test
 * ranks: 2
 * expect: none
 */
/* A ping-pong through persistent requests: set up once, started and completed each iteration,
 * freed at the end. */
#include <mpi.h>

#define ITERATIONS 5

int main(int argc, char **argv)
{
    int rank, out = 0, in = 0;
    MPI_Request reqs[2];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int peer = 1 - rank;
    MPI_Recv_init(&in, 1, MPI_INT, peer, 0, MPI_COMM_WORLD, &reqs[0]);
    MPI_Send_init(&out, 1, MPI_INT, peer, 0, MPI_COMM_WORLD, &reqs[1]);
    for (int i = 0; i < ITERATIONS; i++) {
        out = rank * 100 + i;
        MPI_Startall(2, reqs);
        MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
    }
    MPI_Request_free(&reqs[0]);
    MPI_Request_free(&reqs[1]);
    MPI_Finalize();
    return 0;
}
