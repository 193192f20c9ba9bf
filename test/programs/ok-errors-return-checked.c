/* mpiscope-test
 * ranks: 2
 * expect: none
 */
/* The legal neighbour of invalid-mpi-error-cart-rank.c: the program installs MPI_ERRORS_RETURN on MPI_COMM_WORLD
 * (the Cartesian communicator inherits it), asks for the same coordinate outside the grid, checks the returned
 * code and takes MPI_PROC_NULL instead. MPI's error is the program's to handle here: no finding. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int size, rank, dims[1], periods[1] = { 0 }, right[1], neighbour;
    MPI_Comm line;

    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    dims[0] = size;
    MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &line);
    MPI_Comm_rank(line, &rank);
    right[0] = rank + 2;
    if (MPI_Cart_rank(line, right, &neighbour) != MPI_SUCCESS) neighbour = MPI_PROC_NULL;
    printf("two to the right of %d is %d\n", rank, neighbour);
    MPI_Comm_free(&line);
    MPI_Finalize();
    return 0;
}
