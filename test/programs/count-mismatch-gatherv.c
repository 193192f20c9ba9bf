/* mpiscope-test
 * ranks: 3
 * expect: count-mismatch lines 19
 */
/* The root's receive counts say rank 2 contributes two ints, but rank 2 sends one. No library
 * notices (the message is shorter than the slot), yet the signatures disagree and the root's
 * last slot keeps stale data. All ranks call Gatherv from one line. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, mine[2], all[5] = {0};
    int counts[3] = {1, 2, 2}, displs[3] = {0, 1, 3};

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    mine[0] = mine[1] = rank;
    int my_count = rank == 2 ? 1 : counts[rank]; /* rank 2 should send counts[2] == 2 */
    MPI_Gatherv(mine, my_count, MPI_INT, all, counts, displs, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
