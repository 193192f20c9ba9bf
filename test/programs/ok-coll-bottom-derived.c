/* mpiscope-test
 * ranks: 2
 * expect: none
 */
/* MPI_BOTTOM (NULL) with a derived type whose displacement is an absolute address is a buffer, not a NULL one:
 * the root broadcasts two variables described by one struct type, and every rank gathers one through it. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, a = 0, all[2] = {0, 0};
    double b = 0;
    int lens[2] = {1, 1};
    MPI_Aint where[2];
    MPI_Datatype kinds[2] = {MPI_INT, MPI_DOUBLE}, both, one;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        a = 7, b = 2.5;
    MPI_Get_address(&a, &where[0]);
    MPI_Get_address(&b, &where[1]);
    MPI_Type_create_struct(2, lens, where, kinds, &both);
    MPI_Type_commit(&both);
    MPI_Type_create_struct(1, lens, where, kinds, &one);
    MPI_Type_commit(&one);
    MPI_Bcast(MPI_BOTTOM, 1, both, 0, MPI_COMM_WORLD);
    MPI_Gather(MPI_BOTTOM, 1, one, all, 1, MPI_INT, 0, MPI_COMM_WORLD);
    printf("rank %d: %d %g (%d %d)\n", rank, a, b, all[0], all[1]);
    MPI_Type_free(&one);
    MPI_Type_free(&both);
    MPI_Finalize();
    return 0;
}
