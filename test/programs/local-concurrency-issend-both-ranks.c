/* mpiscope-test
 * ranks: 2
 * mode: memcheck
 * expect: local-concurrency lines 21,22
 */
/* Both ranks update the buffer they are sending before the synchronous send completed: one defect at the same two
 * lines on both ranks, so one finding with a location per rank. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, out[16], in[16];
    MPI_Request req[2];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int i = 0; i < 16; i++)
        out[i] = rank;
    int other = 1 - rank;
    MPI_Irecv(in, 16, MPI_INT, other, 0, MPI_COMM_WORLD, &req[0]);
    MPI_Issend(out, 16, MPI_INT, other, 0, MPI_COMM_WORLD, &req[1]);
    out[15] += 1;
    MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
    MPI_Finalize();
    return 0;
}
