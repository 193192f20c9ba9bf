/* mpiscope-test
 * ranks: 2
 * expect: none
 */
/* A "library" communicator duplicated from MPI_COMM_WORLD carries a message with the same source
 * and tag as one on MPI_COMM_WORLD. They never match each other: matching is per communicator,
 * so rank 1 can receive them in the opposite order of sending. The sends are nonblocking so that
 * the program does not rely on buffering either. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, a = 1, b = 2;
    MPI_Comm library;
    MPI_Request reqs[2];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_dup(MPI_COMM_WORLD, &library);
    if (rank == 0) {
        MPI_Isend(&a, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, &reqs[0]);
        MPI_Isend(&b, 1, MPI_INT, 1, 0, library, &reqs[1]);
        MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
    } else {
        MPI_Recv(&b, 1, MPI_INT, 0, 0, library, MPI_STATUS_IGNORE);
        MPI_Recv(&a, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (a != 1 || b != 2)
            printf("messages crossed communicators\n");
    }
    MPI_Comm_free(&library);
    MPI_Finalize();
    return 0;
}
