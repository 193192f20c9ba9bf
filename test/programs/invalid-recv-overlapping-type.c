/* mpiscope-test
 * ranks: 2
 * expect: invalid-argument lines 24
 */
/* An hvector of three floats with a stride of 3 bytes: its entries overlap (each float shares a byte with the
 * next; CorrBench's TypeCreateHVector-Stride). Rank 0 may send with it (the bytes are only read); rank 1 receives
 * with it, which MPI forbids: what ends up in the shared bytes depends on the order MPI writes the floats. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank;
    float data[4] = {1.0f, 2.0f, 3.0f, 4.0f}, got[4] = {0};
    MPI_Datatype stepped;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Type_create_hvector(3, 1, 3, MPI_FLOAT, &stepped);
    MPI_Type_commit(&stepped);
    if (rank == 0)
        MPI_Send(data, 1, stepped, 1, 0, MPI_COMM_WORLD);
    else
        MPI_Recv(got, 1, stepped, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (rank == 1)
        printf("rank 1 got %g %g\n", got[0], got[1]);
    MPI_Type_free(&stepped);
    MPI_Finalize();
    return 0;
}
