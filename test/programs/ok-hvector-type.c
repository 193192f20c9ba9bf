/* mpiscope-test
 * ranks: 2
 * expect: none
 */
/* The "value" field of an array of structs is sent with an hvector (stride in bytes) and received
 * as plain doubles. Both sides have the signature double x 5. */
#include <mpi.h>

struct cell {
    int id;
    double value;
};

int main(int argc, char **argv)
{
    int rank;
    struct cell cells[5];
    double values[5];
    MPI_Datatype value_column;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Type_create_hvector(5, 1, sizeof(struct cell), MPI_DOUBLE, &value_column);
    MPI_Type_commit(&value_column);
    if (rank == 0) {
        for (int i = 0; i < 5; i++) {
            cells[i].id = i;
            cells[i].value = i * 0.5;
        }
        MPI_Send(&cells[0].value, 1, value_column, 1, 0, MPI_COMM_WORLD);
    } else {
        MPI_Recv(values, 5, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Type_free(&value_column);
    MPI_Finalize();
    return 0;
}
