/* mpiscope-test
 * ranks: 2
 * expect: none
 */
/* Every kind of point-to-point call towards MPI_PROC_NULL: they complete at once, the receive's
 * status says source MPI_PROC_NULL with count 0, and nothing is left unmatched. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int value = 1, count = -1;
    MPI_Request reqs[2];
    MPI_Status status;

    MPI_Init(&argc, &argv);
    MPI_Send(&value, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD);
    MPI_Recv(&value, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &status);
    MPI_Get_count(&status, MPI_INT, &count);
    if (status.MPI_SOURCE != MPI_PROC_NULL || count != 0)
        printf("unexpected status from MPI_PROC_NULL\n");
    MPI_Isend(&value, 1, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &reqs[0]);
    MPI_Irecv(&value, 1, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &reqs[1]);
    MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
    MPI_Finalize();
    return 0;
}
