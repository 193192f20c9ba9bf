/* mpiscope-test
 * ranks: 3
 * expect: none
 */
/* Ranks 1 and 2 put into rank 0's window in one fence epoch with a strided type (every other int):
 * rank 1 the even elements, rank 2 the odd ones. The spans overlap but the elements do not: no race. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, mem[8] = {0}, mine[4];
    MPI_Datatype every_other;
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int i = 0; i < 4; i++) mine[i] = rank;
    MPI_Type_vector(4, 1, 2, MPI_INT, &every_other);
    MPI_Type_commit(&every_other);
    MPI_Win_create(mem, sizeof mem, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);

    MPI_Win_fence(0, win);
    if (rank > 0) {
        MPI_Put(mine, 4, MPI_INT, 0, rank - 1, 1, every_other, win);
    }
    MPI_Win_fence(0, win);

    if (rank == 0 && (mem[0] != 1 || mem[1] != 2 || mem[6] != 1 || mem[7] != 2))
        printf("got %d %d ... %d %d\n", mem[0], mem[1], mem[6], mem[7]);
    MPI_Win_free(&win);
    MPI_Type_free(&every_other);
    MPI_Finalize();
    return 0;
}
