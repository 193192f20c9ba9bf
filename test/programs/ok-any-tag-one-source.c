/* mpiscope-test
 * ranks: 2
 * expect: none
 */
/* Rank 1 receives with MPI_ANY_TAG but from one named source. Messages from one sender on one
 * communicator cannot overtake each other, so the order (tag 1, then 2, then 3) is fixed by the
 * program: no race. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, value;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        for (int tag = 1; tag <= 3; tag++)
            MPI_Send(&tag, 1, MPI_INT, 1, tag, MPI_COMM_WORLD);
    } else {
        for (int i = 1; i <= 3; i++) {
            MPI_Status status;
            MPI_Recv(&value, 1, MPI_INT, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &status);
            if (status.MPI_TAG != i)
                printf("message %d came with tag %d\n", i, status.MPI_TAG);
        }
    }
    MPI_Finalize();
    return 0;
}
