/* mpiscope-test
 * ranks: 3
 * expect: count-mismatch lines 28
 */
/* A transpose-like exchange: rank i sends i+j+1 ints to rank j, and rank j expects i+j+1 from rank i.
 * Rank 2 computes its receive count from rank 0 with an off-by-one, so it expects 4 ints where rank 0
 * sends 3. Neither library notices (the block is shorter than the slot), but the blocks after it are
 * read at the wrong places by any code that trusts recvcounts. All ranks call Alltoallv from one line. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size, i;
    int sendbuf[64], recvbuf[64];
    int scounts[8], sdispls[8], rcounts[8], rdispls[8];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (i = 0; i < 64; i++) sendbuf[i] = rank * 100 + i;
    for (i = 0; i < size; i++) {
        scounts[i] = rank + i + 1;
        rcounts[i] = i + rank + 1 + (rank == 2 && i == 0); /* the bug: one too many from rank 0 */
        sdispls[i] = i == 0 ? 0 : sdispls[i - 1] + scounts[i - 1];
        rdispls[i] = i == 0 ? 0 : rdispls[i - 1] + rcounts[i - 1];
    }
    MPI_Alltoallv(sendbuf, scounts, sdispls, MPI_INT, recvbuf, rcounts, rdispls, MPI_INT, MPI_COMM_WORLD);
    if (rank == 0) printf("exchanged\n");
    MPI_Finalize();
    return 0;
}
