/* mpiscope-test
 * ranks: 4
 * mode: memcheck
 * expect: none
 */
/* Nonblocking collectives overlapped with work on other memory: an Ialltoall, an Iallgather and an Ibcast are in
 * flight while the program computes on its own arrays; every buffer is touched only after MPI_Waitall. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size, a2a_in[4], a2a_out[4], gath[4], root_val[2] = {0, 0}, scratch[256];
    MPI_Request req[3];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int i = 0; i < 4; i++)
        a2a_out[i] = rank * 10 + i;
    if (rank == 0)
        root_val[0] = 42, root_val[1] = 43;
    MPI_Ialltoall(a2a_out, 1, MPI_INT, a2a_in, 1, MPI_INT, MPI_COMM_WORLD, &req[0]);
    MPI_Iallgather(&rank, 1, MPI_INT, gath, 1, MPI_INT, MPI_COMM_WORLD, &req[1]);
    MPI_Ibcast(root_val, 2, MPI_INT, 0, MPI_COMM_WORLD, &req[2]);
    long acc = a2a_out[0];
    for (int i = 0; i < 256; i++)
        scratch[i] = i * rank;
    for (int i = 0; i < 256; i++)
        acc += scratch[i];
    MPI_Waitall(3, req, MPI_STATUSES_IGNORE);
    printf("%ld %d %d %d\n", acc, a2a_in[size - 1], gath[size - 1], root_val[1]);
    MPI_Finalize();
    return 0;
}
