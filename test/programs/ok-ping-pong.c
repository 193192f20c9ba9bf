/* mpiscope-test
 * ranks: 2
 * expect: none
 */
/* The simplest correct exchange: rank 0 sends and then receives, rank 1 receives and then sends. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, ball = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int i = 0; i < 10; i++) {
        if (rank == 0) {
            ball++;
            MPI_Send(&ball, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
            MPI_Recv(&ball, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(&ball, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            ball++;
            MPI_Send(&ball, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
        }
    }
    if (rank == 0 && ball != 20)
        printf("ball is %d\n", ball);
    MPI_Finalize();
    return 0;
}
