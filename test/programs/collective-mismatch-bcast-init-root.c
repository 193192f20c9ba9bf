/* mpiscope-test
 * ranks: 3
 * expect: collective-mismatch lines 28
 * mpi: mpich
 */
/* A persistent broadcast (MPI-4 MPI_Bcast_init, MPICH 4 here) set up once and started every step.
 * The root is meant to be the rank that owns the parameters, but each rank decides it from its own
 * copy of a setting that only rank 0 has read, so rank 0 names itself and the others name rank 2.
 * The initialization is the collective call that must agree on every rank (MPI-4.0 §6.13: the
 * ordering and argument rules of nonblocking collectives); MPICH runs the broadcasts anyway, each
 * rank with its own root, and the values silently disagree. */
#include <mpi.h>
#include <stdio.h>

#define STEPS 4

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int owner_setting = rank == 0 ? 0 : -1; /* read from an input file by rank 0 only */
    int owner = owner_setting >= 0 ? owner_setting : size - 1;

    double params[8];
    MPI_Request bcast;
    MPI_Bcast_init(params, 8, MPI_DOUBLE, owner, MPI_COMM_WORLD, MPI_INFO_NULL, &bcast);
    double check = 0;
    for (int step = 0; step < STEPS; step++) {
        if (rank == owner)
            for (int i = 0; i < 8; i++)
                params[i] = step * 10 + i;
        MPI_Start(&bcast);
        MPI_Wait(&bcast, MPI_STATUS_IGNORE);
        check += params[7];
    }
    MPI_Request_free(&bcast);
    if (rank == 0)
        printf("check %.0f\n", check);
    MPI_Finalize();
    return 0;
}
