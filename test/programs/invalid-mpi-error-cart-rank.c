/* mpiscope-test
 * ranks: 2
 * expect: invalid-argument lines 23
 */
/* MPI_Cart_rank with a coordinate outside a grid that is not periodic (MPI-3.1 7.5.5: out of range only in a
 * periodic dimension). mpiscope's own rules do not check the coordinates; MPI does, and under the default error
 * handler (MPI_ERRORS_ARE_FATAL, which the Cartesian communicator inherits) aborts the job inside the call.
 * MPI's verdict is the finding, at that call. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int size, rank, dims[1], periods[1] = { 0 }, right[1], neighbour;
    MPI_Comm line;

    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    dims[0] = size;
    MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &line);
    MPI_Comm_rank(line, &rank);
    right[0] = rank + 2;
    MPI_Cart_rank(line, right, &neighbour);
    printf("two to the right of %d is %d\n", rank, neighbour);
    MPI_Comm_free(&line);
    MPI_Finalize();
    return 0;
}
