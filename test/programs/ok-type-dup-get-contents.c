/* mpiscope-test
 * ranks: 2
 * expect: none
 */
/* What PETSc does with the unit types of its star forests: it duplicates a committed type with MPI_Type_dup (the
 * copy has the committed state of the original, MPI-3.1 §4.1.10, and is sent with at once), and unwraps such a copy
 * with MPI_Type_get_envelope and MPI_Type_get_contents, then frees the datatype MPI_Type_get_contents returned, as
 * MPI requires of a derived one. That returned handle is the original's (Open MPI and MPICH hand out a reference),
 * and freeing it leaves the original alive: it is used again after. A type freed by the program after another was
 * made of it may also come back from MPI_Type_get_contents, and be queried and freed again. */
#include <mpi.h>
#include <stddef.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, buf[8] = {0}, ni, na, nt, combiner;
    MPI_Datatype pair, copy, inner, got, row;
    MPI_Request req;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Type_contiguous(2, MPI_INT, &pair);
    MPI_Type_commit(&pair);
    MPI_Type_dup(pair, &copy);
    if (rank == 0) MPI_Send_init(buf, 2, copy, 1, 0, MPI_COMM_WORLD, &req);
    else MPI_Recv_init(buf, 2, copy, 0, 0, MPI_COMM_WORLD, &req);
    MPI_Start(&req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Request_free(&req);

    MPI_Type_get_envelope(copy, &ni, &na, &nt, &combiner);
    if (combiner == MPI_COMBINER_DUP) {
        MPI_Type_get_contents(copy, 0, 0, 1, NULL, NULL, &got);
        MPI_Type_get_envelope(got, &ni, &na, &nt, &combiner);
        MPI_Type_free(&got);
    }
    if (rank == 0) MPI_Send(buf, 2, pair, 1, 1, MPI_COMM_WORLD);
    else MPI_Recv(buf, 2, pair, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);

    MPI_Type_contiguous(2, MPI_INT, &inner);
    MPI_Type_contiguous(2, inner, &row);
    MPI_Type_free(&inner);
    MPI_Type_commit(&row);
    MPI_Type_get_envelope(row, &ni, &na, &nt, &combiner);
    if (combiner == MPI_COMBINER_CONTIGUOUS && nt == 1) {
        MPI_Type_get_contents(row, 1, 0, 1, &ni, NULL, &got);
        MPI_Type_get_envelope(got, &ni, &na, &nt, &combiner);
        MPI_Type_free(&got);
    }
    if (rank == 0) MPI_Send(buf, 1, row, 1, 2, MPI_COMM_WORLD);
    else MPI_Recv(buf, 1, row, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (buf[0] != 0) printf("rank %d: unexpected data\n", rank);

    MPI_Type_free(&row);
    MPI_Type_free(&copy);
    MPI_Type_free(&pair);
    MPI_Finalize();
    return 0;
}
