/* mpiscope-test
 * ranks: 4
 * expect: none
 */
/* Two halves joined by MPI_Intercomm_create, queried, merged back and freed. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, remote, inter_flag;
    MPI_Comm half, inter, merged;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rank % 2 == 0 ? 1 : 0, 7, &inter);
    MPI_Comm_test_inter(inter, &inter_flag);
    MPI_Comm_remote_size(inter, &remote);
    MPI_Intercomm_merge(inter, rank % 2, &merged);
    MPI_Comm_free(&merged);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&half);
    MPI_Finalize();
    return 0;
}
