/* mpiscope-test
 * ranks: 2
 * expect: none
 */
/* Sender and receiver build the struct datatype for (int, double) separately, so the handles
 * differ on each side (and could even differ in layout); only the signatures must agree. */
#include <mpi.h>
#include <stddef.h>

struct particle {
    int id;
    double mass;
};

static MPI_Datatype particle_type(void)
{
    int lengths[2] = {1, 1};
    MPI_Aint offsets[2] = {offsetof(struct particle, id), offsetof(struct particle, mass)};
    MPI_Datatype types[2] = {MPI_INT, MPI_DOUBLE};
    MPI_Datatype t;
    MPI_Type_create_struct(2, lengths, offsets, types, &t);
    MPI_Type_commit(&t);
    return t;
}

int main(int argc, char **argv)
{
    int rank;
    struct particle p[2] = {{1, 1.5}, {2, 2.5}};

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Datatype t = particle_type();
    if (rank == 0)
        MPI_Send(p, 2, t, 1, 0, MPI_COMM_WORLD);
    else
        MPI_Recv(p, 2, t, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Type_free(&t);
    MPI_Finalize();
    return 0;
}
