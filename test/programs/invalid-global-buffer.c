/* mpiscope-test
 * ranks: 2
 * expect: invalid-argument lines 22
 */
/* Rank 0 sends eight ints from a global array of four: MPI reads 16 bytes past it (the next global's, here).
 * The program's symbol table says how big the array is. */
#include <mpi.h>
#include <stdio.h>

int four[4] = {1, 2, 3, 4};
int after[4] = {5, 6, 7, 8};
int eight[8];

int main(int argc, char **argv)
{
    int rank;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        after[0] = 0;
        MPI_Send(four, 8, MPI_INT, 1, 0, MPI_COMM_WORLD);
    } else {
        MPI_Recv(eight, 8, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        printf("received %d\n", eight[0]);
    }
    MPI_Finalize();
    return 0;
}
