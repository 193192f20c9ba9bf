/* mpiscope-test
 * ranks: 4
 * expect: none
 */
/* Rooted collectives on an intercommunicator: in the root's group the root passes MPI_ROOT and the others
 * MPI_PROC_NULL, whose buffers MPI ignores (NULL in the gather; MPICH checks a broadcast's buffer there all the
 * same, so the broadcast's are real ones); the root's send buffer of a gather is not used either, nor the other
 * group's receive buffers. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, value = 0, mine, all[2] = {0, 0};
    MPI_Comm half, inter;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rank % 2 == 0 ? 1 : 0, 7, &inter);
    int root = rank % 2 == 1 ? 0 : rank == 0 ? MPI_ROOT : MPI_PROC_NULL;
    mine = rank;
    if (rank == 0)
        value = 42;
    MPI_Bcast(&value, 1, MPI_INT, root, inter);
    MPI_Gather(rank % 2 == 1 ? &mine : NULL, 1, MPI_INT, rank == 0 ? all : NULL, 1, MPI_INT, root, inter);
    printf("rank %d: %d (%d %d)\n", rank, value, all[0], all[1]);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&half);
    MPI_Finalize();
    return 0;
}
