/* mpiscope-test
 * ranks: 3
 * expect: none
 */
/* Rank i sends j+1 ints to rank j, so every pair uses a different count; each rank's receive
 * counts agree with what the others send it (rank j receives j+1 ints from everyone). */
#include <mpi.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, size;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int *scounts = calloc(size, sizeof(int)), *sdispls = calloc(size, sizeof(int));
    int *rcounts = calloc(size, sizeof(int)), *rdispls = calloc(size, sizeof(int));
    int stotal = 0, rtotal = 0;
    for (int j = 0; j < size; j++) {
        scounts[j] = j + 1;
        sdispls[j] = stotal;
        stotal += scounts[j];
        rcounts[j] = rank + 1;
        rdispls[j] = rtotal;
        rtotal += rcounts[j];
    }
    int *sbuf = calloc(stotal, sizeof(int)), *rbuf = calloc(rtotal, sizeof(int));
    MPI_Alltoallv(sbuf, scounts, sdispls, MPI_INT, rbuf, rcounts, rdispls, MPI_INT, MPI_COMM_WORLD);
    free(sbuf);
    free(rbuf);
    free(scounts);
    free(sdispls);
    free(rcounts);
    free(rdispls);
    MPI_Finalize();
    return 0;
}
