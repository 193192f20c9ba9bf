/* mpiscope-test
 * ranks: 3
 * expect: none
 */
/* A user-defined (commutative) op: element-wise maximum of absolute values. Created, used by
 * every rank with the same handle semantics, freed. */
#include <mpi.h>
#include <stdlib.h>

static void abs_max(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    int *a = in, *b = inout;
    for (int i = 0; i < *len; i++)
        if (abs(a[i]) > abs(b[i]))
            b[i] = a[i];
}

int main(int argc, char **argv)
{
    int rank, v[2], result[2];
    MPI_Op op;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Op_create(abs_max, 1, &op);
    v[0] = rank % 2 ? -rank : rank;
    v[1] = 1;
    MPI_Reduce(v, result, 2, MPI_INT, op, 0, MPI_COMM_WORLD);
    MPI_Op_free(&op);
    MPI_Finalize();
    return 0;
}
