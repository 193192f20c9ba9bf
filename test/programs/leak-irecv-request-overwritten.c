/* mpiscope-test
 * ranks: 2
 * expect: resource-leak lines 20
 */
/* Rank 0 posts two receives into one request variable (the second overwrites the first's handle) and
 * waits only for the second: the first request is never completed nor freed. The first receive still
 * takes the first message (receives with the same envelope match in posting order), so the ints go into
 * the int buffer and the doubles into the double one: nothing else is wrong. LAMMPS's fix neb did this. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, ints[4] = {1, 2, 3, 4};
    double doubles[2] = {0.5, 1.5};
    MPI_Request req;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Irecv(ints, 4, MPI_INT, 1, 0, MPI_COMM_WORLD, &req);
        MPI_Irecv(doubles, 2, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    } else {
        MPI_Send(ints, 4, MPI_INT, 0, 0, MPI_COMM_WORLD);
        MPI_Send(doubles, 2, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
