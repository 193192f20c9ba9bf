/* mpiscope-test
 * ranks: 2
 * expect: none
 */
/* A type whose entries overlap (an hvector of three floats with a stride of 3 bytes) is legal in a send, which
 * only reads the bytes: rank 0 sends with it, rank 1 receives the three floats into a plain array. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank;
    float data[4] = {1.0f, 2.0f, 3.0f, 4.0f}, got[3] = {0};
    MPI_Datatype stepped;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Type_create_hvector(3, 1, 3, MPI_FLOAT, &stepped);
    MPI_Type_commit(&stepped);
    if (rank == 0)
        MPI_Send(data, 1, stepped, 1, 0, MPI_COMM_WORLD);
    else
        MPI_Recv(got, 3, MPI_FLOAT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Type_free(&stepped);
    MPI_Finalize();
    return 0;
}
