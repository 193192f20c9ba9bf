/* mpiscope-test
 * ranks: 2
 * expect: type-mismatch lines 29,32
 */
/* The sender describes its record as (int, float) with a struct datatype; the receiver takes
 * the same eight bytes as two ints. Sizes agree, type signatures do not. */
#include <mpi.h>
#include <stddef.h>

struct sample {
    int id;
    float value;
};

int main(int argc, char **argv)
{
    int rank;
    MPI_Datatype sample_type;
    int lengths[2] = {1, 1};
    MPI_Aint offsets[2] = {offsetof(struct sample, id), offsetof(struct sample, value)};
    MPI_Datatype types[2] = {MPI_INT, MPI_FLOAT};

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Type_create_struct(2, lengths, offsets, types, &sample_type);
    MPI_Type_commit(&sample_type);
    if (rank == 0) {
        struct sample s = {7, 2.5f};
        MPI_Send(&s, 1, sample_type, 1, 0, MPI_COMM_WORLD);
    } else {
        int raw[2];
        MPI_Recv(raw, 2, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Type_free(&sample_type);
    MPI_Finalize();
    return 0;
}
