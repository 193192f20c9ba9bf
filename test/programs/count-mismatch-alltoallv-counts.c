/* mpiscope-test
 * ranks: 6
 * expect: count-mismatch lines 59
 */
/* The sample sort of ok-sample-sort.c with a classic slip: MPI_Alltoallv is given the send
 * counts as its receive counts. Rank i expects from rank j as many keys as it sends to j, while
 * j sends what its own splitting gives, so the pairwise counts disagree and (depending on the
 * keys and the library) a receive is truncated or comes up short. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define KEYS 2000
#define ROUNDS 5

static int cmp(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

static int sort_round(int rank, int size, int round)
{
    int *keys = malloc(KEYS * sizeof(int));
    unsigned seed = 17u * (unsigned)rank + 101u * (unsigned)round + 1u;
    for (int i = 0; i < KEYS; i++)
        keys[i] = (int)(rand_r(&seed) % 1000000);
    qsort(keys, KEYS, sizeof(int), cmp);

    int *samples = malloc(size * sizeof(int)), *all = NULL, *split = malloc(size * sizeof(int));
    for (int i = 0; i < size; i++)
        samples[i] = keys[i * KEYS / size];
    if (rank == 0)
        all = malloc((size_t)size * size * sizeof(int));
    MPI_Gather(samples, size, MPI_INT, all, size, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        qsort(all, (size_t)size * size, sizeof(int), cmp);
        for (int i = 1; i < size; i++)
            split[i - 1] = all[i * size];
        free(all);
    }
    MPI_Bcast(split, size - 1, MPI_INT, 0, MPI_COMM_WORLD);

    int *scount = calloc(size, sizeof(int)), *rcount = malloc(size * sizeof(int));
    int *sdispl = malloc(size * sizeof(int)), *rdispl = malloc(size * sizeof(int));
    for (int i = 0, b = 0; i < KEYS; i++) {
        while (b < size - 1 && keys[i] >= split[b])
            b++;
        scount[b]++;
    }
    MPI_Alltoall(scount, 1, MPI_INT, rcount, 1, MPI_INT, MPI_COMM_WORLD);
    int total = 0;
    for (int i = 0; i < size; i++) {
        sdispl[i] = i == 0 ? 0 : sdispl[i - 1] + scount[i - 1];
        rdispl[i] = total;
        total += rcount[i];
    }
    int *mine = malloc((total > 0 ? total : 1) * sizeof(int));
    MPI_Alltoallv(keys, scount, sdispl, MPI_INT, mine, scount, rdispl, MPI_INT, MPI_COMM_WORLD);
    qsort(mine, total, sizeof(int), cmp);

    int *sizes = malloc(size * sizeof(int));
    MPI_Allgather(&total, 1, MPI_INT, sizes, 1, MPI_INT, MPI_COMM_WORLD);
    int grand = 0;
    for (int i = 0; i < size; i++)
        grand += sizes[i];

    /* My smallest key must not be below my left neighbour's largest. */
    int left = rank > 0 ? rank - 1 : MPI_PROC_NULL, right = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
    int mylast = total > 0 ? mine[total - 1] : -1, theirlast = -1, bad = 0;
    MPI_Sendrecv(&mylast, 1, MPI_INT, right, 7, &theirlast, 1, MPI_INT, left, 7, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    if (total > 0 && theirlast > mine[0])
        bad = 1;
    int anybad;
    MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
    if (rank == 0 && (anybad || grand != KEYS * size))
        printf("round %d: sort failed\n", round);

    free(keys);
    free(samples);
    free(split);
    free(scount);
    free(rcount);
    free(sdispl);
    free(rdispl);
    free(mine);
    free(sizes);
    return grand;
}

int main(int argc, char **argv)
{
    int rank, size, sorted = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int round = 0; round < ROUNDS; round++)
        sorted += sort_round(rank, size, round);
    if (rank == 0)
        printf("sample sort: %d keys sorted in %d rounds\n", sorted, ROUNDS);
    MPI_Finalize();
    return 0;
}
