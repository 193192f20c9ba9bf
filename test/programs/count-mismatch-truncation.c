/* mpiscope-test
 * ranks: 2
 * expect: count-mismatch lines 18,20
 */
/* Rank 0 sends eight ints into a four-int receive. The library reports MPI_ERR_TRUNCATE, which
 * MPI_ERRORS_RETURN turns into a return code instead of an abort. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, data[8] = {1, 2, 3, 4, 5, 6, 7, 8};

    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Send(data, 8, MPI_INT, 1, 0, MPI_COMM_WORLD);
    } else {
        int rc = MPI_Recv(data, 4, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (rc == MPI_SUCCESS)
            printf("truncation was not reported\n");
    }
    MPI_Finalize();
    return 0;
}
