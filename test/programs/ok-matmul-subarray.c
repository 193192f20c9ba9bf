/* mpiscope-test
 * ranks: 4
 * expect: none
 */
/* C = A * B on a square grid of processes. Rank 0 holds the whole matrices and distributes
 * 2-D blocks of A with MPI_Scatterv of an MPI_Type_create_subarray block resized to one
 * double, so that displacements count in doubles; B is broadcast whole; the blocks of C come
 * back with MPI_Gatherv of the same type. Repeated for a few matrix sizes' worth of rounds. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define N 48
#define ROUNDS 8

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int q = 1;
    while ((q + 1) * (q + 1) <= size)
        q++;
    if (q * q != size || N % q != 0) {
        if (rank == 0)
            printf("needs a square number of ranks dividing %d\n", N);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    int nb = N / q;

    /* One nb x nb block of an N x N row-major matrix, with extent one double. */
    MPI_Datatype block, block1;
    int sizes[2] = {N, N}, sub[2] = {nb, nb}, starts[2] = {0, 0};
    MPI_Type_create_subarray(2, sizes, sub, starts, MPI_ORDER_C, MPI_DOUBLE, &block);
    MPI_Type_create_resized(block, 0, sizeof(double), &block1);
    MPI_Type_commit(&block1);
    MPI_Type_free(&block);

    int *counts = malloc(size * sizeof(int)), *displs = malloc(size * sizeof(int));
    for (int i = 0; i < q; i++)
        for (int j = 0; j < q; j++) {
            counts[i * q + j] = 1;
            displs[i * q + j] = i * nb * N + j * nb;
        }

    double *A = NULL, *C = NULL, *B = malloc(N * N * sizeof(double));
    double *a = malloc(nb * nb * sizeof(double)), *c = malloc(nb * nb * sizeof(double));
    if (rank == 0) {
        A = malloc(N * N * sizeof(double));
        C = malloc(N * N * sizeof(double));
    }
    int bi = rank / q, bj = rank % q;
    double trace = 0.0;
    for (int round = 0; round < ROUNDS; round++) {
        if (rank == 0)
            for (int i = 0; i < N * N; i++) {
                A[i] = (i % (N + 1)) == 0 ? 1.0 + round : 0.01 * (i % 13);
                B[i] = (i % (N + 1)) == 0 ? 2.0 : 0.0;
            }
        MPI_Scatterv(A, counts, displs, block1, a, nb * nb, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        MPI_Bcast(B, N * N, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        /* A block-local product (my block of A times the matching block of B): enough to check
         * that every block went to the right rank and came back to the right place. */
        for (int i = 0; i < nb; i++)
            for (int j = 0; j < nb; j++) {
                double s = 0.0;
                for (int k = 0; k < nb; k++)
                    s += a[i * nb + k] * B[(bi * nb + k) * N + bj * nb + j];
                c[i * nb + j] = s;
            }
        MPI_Gatherv(c, nb * nb, MPI_DOUBLE, C, counts, displs, block1, 0, MPI_COMM_WORLD);
        if (rank == 0)
            for (int i = 0; i < N; i++)
                trace += C[i * N + i];
    }
    if (rank == 0) {
        printf("matmul: trace sum %.2f (%d x %d blocks)\n", trace, q, q);
        free(A);
        free(C);
    }
    free(B);
    free(a);
    free(c);
    free(counts);
    free(displs);
    MPI_Type_free(&block1);
    MPI_Finalize();
    return 0;
}
