/* mpiscope-test
 * ranks: 1
 * expect: invalid-argument lines 18
 */
/* MPI_Pack from a pointer that is not NULL but points nowhere (a small integer stored where a buffer's address
 * belongs): the rank dies of SIGSEGV inside MPI_Pack, while MPI copies the input. The finding is at that call,
 * and the rank's ending says "inside MPI_Pack". */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    char out[4096];
    int position = 0;
    int *data = (int *)(uintptr_t)64;
    MPI_Init(&argc, &argv);
    MPI_Pack(data, 512, MPI_INT, out, (int)sizeof out, &position, MPI_COMM_WORLD);
    printf("packed %d\n", position);
    MPI_Finalize();
    return 0;
}
