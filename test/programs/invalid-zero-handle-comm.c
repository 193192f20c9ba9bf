/* mpiscope-test
 * ranks: 2
 * expect: invalid-argument error lines 22
 */
/* Rank 0 sends on a communicator variable that was zeroed and never set: a NULL pointer under Open MPI, 0 under
 * MPICH. Neither is MPI_COMM_NULL (Open MPI's null handles are addresses of objects, MPICH's carry a kind), and
 * neither is a communicator. MPI's default handler aborts the job on that call: the finding must reach the
 * analyzer before it does. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    int rank, value[4] = {1, 2, 3, 4};
    MPI_Comm comm;

    memset(&comm, 0, sizeof comm);
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        int rc = MPI_Send(value, 1, MPI_INT, 1, 0, comm);
        if (rc == MPI_SUCCESS)
            printf("the library accepted it\n");
    }
    MPI_Finalize();
    return 0;
}
