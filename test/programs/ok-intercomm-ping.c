/* mpiscope-test
 * ranks: 4
 * expect: none
 */
/* World is split into two groups joined by an intercommunicator; rank r of the first group pings
 * rank r of the second. Ranks in an intercommunicator name the remote group. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, local_rank, value;
    MPI_Comm half, inter;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int group = rank < 2 ? 0 : 1;
    MPI_Comm_split(MPI_COMM_WORLD, group, rank, &half);
    MPI_Comm_rank(half, &local_rank);
    /* Local leader 0 of each half; the remote leader is given as a rank of MPI_COMM_WORLD. */
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, group == 0 ? 2 : 0, 7, &inter);
    if (group == 0) {
        value = rank;
        MPI_Send(&value, 1, MPI_INT, local_rank, 0, inter);
        MPI_Recv(&value, 1, MPI_INT, local_rank, 1, inter, MPI_STATUS_IGNORE);
    } else {
        MPI_Recv(&value, 1, MPI_INT, local_rank, 0, inter, MPI_STATUS_IGNORE);
        MPI_Send(&value, 1, MPI_INT, local_rank, 1, inter);
    }
    MPI_Comm_free(&inter);
    MPI_Comm_free(&half);
    MPI_Finalize();
    return 0;
}
