/* mpiscope-test
 * ranks: 2
 * expect: resource-leak lines 16
 */
/* A derived datatype is created, committed and used, but never freed. The leak points at the call
 * that created it, not at the commit. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, data[6] = {0};
    MPI_Datatype triple;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Type_contiguous(3, MPI_INT, &triple);
    MPI_Type_commit(&triple);
    if (rank == 0)
        MPI_Send(data, 2, triple, 1, 0, MPI_COMM_WORLD);
    else
        MPI_Recv(data, 2, triple, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Finalize();
    return 0;
}
