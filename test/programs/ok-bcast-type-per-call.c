/* mpiscope-test
 * ranks: 2
 * expect: none
 */
/* BLACS (ScaLAPACK's communication layer) broadcasts each block with a type it builds for that call and
 * frees at once; MPI hands the freed handle out again for the next block's type. Both ranks agree on every
 * broadcast. Rank 1 starts late, so rank 0's calls (the root's broadcasts return without waiting) run far
 * ahead of rank 1's: a checker must compare each broadcast with the type its handle meant at that call. */
#include <mpi.h>
#include <unistd.h>

static void bcast_block(int n, MPI_Datatype base, void *buf)
{
    MPI_Datatype block;
    MPI_Type_contiguous(n, base, &block);
    MPI_Type_commit(&block);
    MPI_Bcast(buf, 1, block, 0, MPI_COMM_WORLD);
    MPI_Type_free(&block);
}

int main(int argc, char **argv)
{
    int rank;
    int ints[32] = {0};
    double doubles[32] = {0};

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 1)
        usleep(300000);
    for (int round = 0; round < 20; round++) {
        bcast_block(25, MPI_INT, ints);
        bcast_block(1, MPI_DOUBLE, doubles);
        bcast_block(13 + round % 7, MPI_INT, ints);
        bcast_block(20, MPI_DOUBLE, doubles);
    }
    MPI_Finalize();
    return 0;
}
