/* mpiscope-test
 * ranks: 2
 * expect: none
 */
/* Heap buffers that are big enough, in every shape the heap-buffer check must leave alone: a block used whole,
 * slices that end exactly at a block's end, calloc, realloc (grown and shrunk), aligned blocks, a count that
 * uses the bytes malloc rounds up, a receive of fewer elements than the block holds, a derived type over a
 * struct of blocks addressed from the first (MPI_BOTTOM-like absolute addresses are legal), collectives, a block
 * freed and allocated again, and a large block (mmapped by malloc). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, peer;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    peer = 1 - rank;
    int *whole = malloc(10 * sizeof(int));
    double *rows = calloc(100, sizeof(double));
    char *grown = malloc(8);
    grown = realloc(grown, 300);
    long *shrunk = malloc(50 * sizeof(long));
    shrunk = realloc(shrunk, 20 * sizeof(long));
    void *aligned = NULL;
    if (posix_memalign(&aligned, 64, 256) != 0)
        return 1;
    int *big = malloc(1 << 20);
    for (int i = 0; i < 10; i++)
        whole[i] = i;
    for (int i = 0; i < 300; i++)
        grown[i] = (char)i;
    /* Exchanges, each with the same count on both sides. */
    MPI_Sendrecv(whole, 10, MPI_INT, peer, 0, rows, 10, MPI_INT, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Sendrecv(rows + 90, 10, MPI_DOUBLE, peer, 1, rows + 80, 10, MPI_DOUBLE, peer, 1, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    MPI_Sendrecv(grown, 150, MPI_CHAR, peer, 2, grown + 150, 150, MPI_CHAR, peer, 2, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    MPI_Sendrecv(shrunk + 10, 10, MPI_LONG, peer, 3, shrunk, 10, MPI_LONG, peer, 3, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    MPI_Sendrecv(aligned, 64, MPI_FLOAT, peer, 4, big, 64, MPI_FLOAT, peer, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    /* A receive of up to 10 ints into a block of 10, where 5 come. */
    if (rank == 0)
        MPI_Send(whole, 5, MPI_INT, 1, 5, MPI_COMM_WORLD);
    else
        MPI_Recv(whole, 10, MPI_INT, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    /* malloc(13) gives a block of at least 13 bytes: 13 chars fit. */
    char *odd = malloc(13);
    MPI_Bcast(odd, 13, MPI_CHAR, 0, MPI_COMM_WORLD);
    /* A struct type over two separate blocks, displacements from the first: legal, and not judged by size. */
    int *first = malloc(sizeof(int)), *second = malloc(64 * sizeof(int));
    MPI_Aint a0, a1;
    MPI_Get_address(first, &a0);
    MPI_Get_address(second, &a1);
    int lens[2] = {1, 64};
    MPI_Aint disps[2] = {0, a1 - a0};
    MPI_Datatype types[2] = {MPI_INT, MPI_INT}, pair;
    MPI_Type_create_struct(2, lens, disps, types, &pair);
    MPI_Type_commit(&pair);
    MPI_Bcast(first, 1, pair, 0, MPI_COMM_WORLD);
    MPI_Type_free(&pair);
    /* Collectives over whole blocks and the end of one. */
    MPI_Allreduce(MPI_IN_PLACE, rows, 100, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allgather(whole + 5, 5, MPI_INT, shrunk, 5, MPI_INT, MPI_COMM_WORLD);
    MPI_Reduce(rows + 50, rank == 0 ? rows : NULL, 50, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    free(whole);
    whole = malloc(3 * sizeof(int));
    MPI_Bcast(whole, 3, MPI_INT, 1, MPI_COMM_WORLD);
    MPI_Bcast(big, (1 << 20) / (int)sizeof(int), MPI_INT, 0, MPI_COMM_WORLD);
    printf("rank %d: %g %d %d\n", rank, rows[0], whole[0], first[0] + second[63]);
    free(whole);
    free(rows);
    free(grown);
    free(shrunk);
    free(aligned);
    free(big);
    free(odd);
    free(first);
    free(second);
    MPI_Finalize();
    return 0;
}
