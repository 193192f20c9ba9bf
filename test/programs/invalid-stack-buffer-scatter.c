/* mpiscope-test
 * ranks: 2
 * expect: invalid-argument lines 17
 */
/* The root scatters two ints to each of the two ranks from an array of two: MPI reads four ints, two of them
 * past the array. Each rank receives into an array of two, which is right. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank;
    int mine[2] = {0, 0};
    int all[2] = {1, 2};

    MPI_Init(&argc, &argv);
    MPI_Scatter(all, 2, MPI_INT, mine, 2, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    printf("rank %d got %d\n", rank, mine[0]);
    MPI_Finalize();
    return 0;
}
