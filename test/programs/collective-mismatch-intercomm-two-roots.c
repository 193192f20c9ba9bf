/* mpiscope-test
 * ranks: 4
 * expect: collective-mismatch lines 24
 */
/* A broadcast on an intercommunicator with two roots: in the root's group exactly one rank passes MPI_ROOT and the
 * others MPI_PROC_NULL, but here ranks 0 and 2 (ranks 0 and 1 of their group) both pass MPI_ROOT while the other
 * group names rank 0. Rank 2's value goes nowhere (MPI may send it all the same: eager messages no one takes). */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, value = 0;
    MPI_Comm half, inter;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rank % 2 == 0 ? 1 : 0, 7, &inter);
    /* Wrong: every even rank passes MPI_ROOT. */
    int root = rank % 2 == 1 ? 0 : MPI_ROOT;
    if (rank % 2 == 0)
        value = 42 + rank;
    MPI_Bcast(&value, 1, MPI_INT, root, inter);
    printf("rank %d: %d\n", rank, value);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&half);
    MPI_Finalize();
    return 0;
}
