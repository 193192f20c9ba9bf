/* mpiscope-test
 * ranks: 2
 * expect: invalid-argument lines 19
 */
/* Rank 0 sends eight ints from an array of four on its stack: MPI reads 16 bytes past the array (here, other
 * bytes of the stack; with a larger count it reads past the end of the stack and the rank dies of SIGSEGV in
 * MPI). The debug info of main says how big the array is. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        int four[4] = {1, 2, 3, 4};
        MPI_Send(four, 8, MPI_INT, 1, 0, MPI_COMM_WORLD);
    } else {
        int eight[8];
        MPI_Recv(eight, 8, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        printf("received %d\n", eight[0]);
    }
    MPI_Finalize();
    return 0;
}
