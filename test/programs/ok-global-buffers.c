/* mpiscope-test
 * ranks: 2
 * expect: none
 */
/* Global and static buffers that are exactly big enough: a whole array, a pointer into the middle of one, a
 * struct and one of its members, a static local, and a collective on globals. */
#include <mpi.h>
#include <stdio.h>

struct pair {
    int head;
    int tail[4];
};

int ten[10];
struct pair s = {1, {2, 3, 4, 5}};
double all[2], mine = 1.0;

int main(int argc, char **argv)
{
    static int counts[3];
    int rank, peer;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    peer = 1 - rank;
    if (rank == 0) {
        MPI_Send(ten, 10, MPI_INT, peer, 0, MPI_COMM_WORLD);
        MPI_Send(&ten[6], 4, MPI_INT, peer, 0, MPI_COMM_WORLD);
        MPI_Send(&s, 5, MPI_INT, peer, 0, MPI_COMM_WORLD);
        MPI_Send(s.tail, 4, MPI_INT, peer, 0, MPI_COMM_WORLD);
        MPI_Send(counts, 3, MPI_INT, peer, 0, MPI_COMM_WORLD);
    } else {
        MPI_Recv(ten, 10, MPI_INT, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(&ten[6], 4, MPI_INT, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(&s, 5, MPI_INT, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(s.tail, 4, MPI_INT, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(counts, 3, MPI_INT, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Gather(&mine, 1, MPI_DOUBLE, all, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    MPI_Bcast(all, 2, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (rank == 0) printf("%g %d %d\n", all[1], ten[9], counts[2]);
    MPI_Finalize();
    return 0;
}
