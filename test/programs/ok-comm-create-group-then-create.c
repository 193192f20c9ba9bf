/* mpiscope-test
 * ranks: 3
 * expect: none
 */
/* MPI_Comm_create_group is collective over its group only: ranks 0 and 2 make a communicator of the even ranks
 * with it, rank 1 does not call it. Then every rank calls MPI_Comm_create for ranks 1 and 2, which exchange on
 * that communicator: it is one communicator on both (MPICH's MTest harness makes its test communicators so). */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size, excl[1] = {1}, range[1][3] = {{1, 2, 1}}, v, sum = 0;
    MPI_Group world, even, high;
    MPI_Comm evens = MPI_COMM_NULL, highs = MPI_COMM_NULL;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_excl(world, 1, excl, &even);
    if (rank % 2 == 0) MPI_Comm_create_group(MPI_COMM_WORLD, even, 0, &evens);
    MPI_Group_range_incl(world, 1, range, &high);
    MPI_Comm_create(MPI_COMM_WORLD, high, &highs);
    if (highs != MPI_COMM_NULL) {
        int hr, peer;
        MPI_Comm_rank(highs, &hr);
        peer = 1 - hr;
        MPI_Sendrecv(&rank, 1, MPI_INT, peer, 0, &v, 1, MPI_INT, peer, 0, highs, MPI_STATUS_IGNORE);
        MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, highs);
        MPI_Comm_free(&highs);
    }
    if (evens != MPI_COMM_NULL) {
        MPI_Barrier(evens);
        MPI_Comm_free(&evens);
    }
    if (rank != 0 && sum != 3) printf("rank %d: sum %d\n", rank, sum);
    MPI_Group_free(&high);
    MPI_Group_free(&even);
    MPI_Group_free(&world);
    MPI_Finalize();
    return 0;
}
