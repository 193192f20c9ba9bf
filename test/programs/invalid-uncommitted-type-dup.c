/* mpiscope-test
 * ranks: 2
 * expect: invalid-argument lines 23
 */
/* Rank 0 duplicates a derived datatype it never committed and sends with the copy (to MPI_PROC_NULL: MPICH takes
 * the send, Open MPI fails it): MPI_Type_dup's type has the committed state of the original (MPI-3.1 §4.1.10), so
 * the copy is uncommitted too. The twin of ok-type-dup-get-contents.c, whose copy is of a committed type.
 * MPI_ERRORS_RETURN makes the library return an error code instead of aborting the job. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, value[4] = {1, 2, 3, 4};
    MPI_Datatype pair, copy;

    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Type_contiguous(2, MPI_INT, &pair);
    MPI_Type_dup(pair, &copy);
    if (rank == 0) {
        int rc = MPI_Send(value, 2, copy, MPI_PROC_NULL, 0, MPI_COMM_WORLD);
        if (rc == MPI_SUCCESS)
            printf("the library accepted it\n");
    }
    MPI_Type_free(&copy);
    MPI_Type_free(&pair);
    MPI_Finalize();
    return 0;
}
