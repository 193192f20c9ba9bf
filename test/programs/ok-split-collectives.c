/* mpiscope-test
 * ranks: 4
 * expect: none
 */
/* Even and odd ranks form two communicators and run collectives in each at the same time;
 * the collectives must be matched per communicator, not across MPI_COMM_WORLD. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, sub_rank, sub_size, sum, root_value;
    MPI_Comm half;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    MPI_Comm_rank(half, &sub_rank);
    MPI_Comm_size(half, &sub_size);

    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, half);
    root_value = sub_rank == 0 ? sum : -1;
    MPI_Bcast(&root_value, 1, MPI_INT, 0, half);
    MPI_Barrier(half);
    if (root_value != sum)
        printf("rank %d: bcast gave %d, expected %d\n", rank, root_value, sum);

    MPI_Comm_free(&half);
    MPI_Finalize();
    return 0;
}
