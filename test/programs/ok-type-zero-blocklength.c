/* mpiscope-test
 * ranks: 2
 * expect: none
 */
/* Zero block lengths are legal (MPI-3.1 4.1.2, 4.1.4): a vector of empty blocks is an empty type, and an indexed
 * type may skip entries with a zero length. The legal neighbour of invalid-type-*-negative-blocklength.c. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, data[8] = { 0, 1, 2, 3, 4, 5, 6, 7 };
    int lengths[3] = { 1, 0, 2 }, displs[3] = { 0, 2, 5 };
    MPI_Datatype empty, picks;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Type_vector(3, 0, 2, MPI_INT, &empty);
    MPI_Type_commit(&empty);
    MPI_Type_indexed(3, lengths, displs, MPI_INT, &picks);
    MPI_Type_commit(&picks);
    if (rank == 0) {
        MPI_Send(data, 1, picks, 1, 0, MPI_COMM_WORLD);
        MPI_Send(data, 1, empty, 1, 1, MPI_COMM_WORLD);
    } else {
        MPI_Recv(data, 1, picks, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(data, 1, empty, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        printf("%d %d %d\n", data[0], data[5], data[6]);
    }
    MPI_Type_free(&empty);
    MPI_Type_free(&picks);
    MPI_Finalize();
    return 0;
}
