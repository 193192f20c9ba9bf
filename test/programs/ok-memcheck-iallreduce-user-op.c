/* mpiscope-test
 * ranks: 3
 * mode: memcheck
 * expect: none
 */
/* A nonblocking reduction with a user-defined op: the op (compiled with the instrumentation) reads and writes the
 * reduction's buffers, but it runs inside MPI, on MPI's behalf; the program waits before reading the result. */
#include <mpi.h>
#include <stdio.h>

static void absmax(void *in, void *inout, int *len, MPI_Datatype *t)
{
    (void)t;
    double *a = in, *b = inout;
    for (int i = 0; i < *len; i++) {
        double x = a[i] < 0 ? -a[i] : a[i], y = b[i] < 0 ? -b[i] : b[i];
        b[i] = x > y ? x : y;
    }
}

int main(int argc, char **argv)
{
    int rank;
    double mine[3], out[3];
    MPI_Op op;
    MPI_Request req;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int i = 0; i < 3; i++)
        mine[i] = (rank % 2 ? -1.0 : 1.0) * (rank + i);
    MPI_Op_create(absmax, 1, &op);
    MPI_Iallreduce(mine, out, 3, MPI_DOUBLE, op, MPI_COMM_WORLD, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    printf("%g\n", out[2]);
    MPI_Op_free(&op);
    MPI_Finalize();
    return 0;
}
