/* mpiscope-test
 * ranks: 2
 * expect: none
 */
/* A resized type picks the "x" field of each struct in an array (its extent is the struct's), so
 * count 4 sends four ints; the receiver takes four plain ints. */
#include <mpi.h>

struct point {
    int x;
    int y;
    int z;
};

int main(int argc, char **argv)
{
    int rank;
    MPI_Datatype x_only;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Type_create_resized(MPI_INT, 0, sizeof(struct point), &x_only);
    MPI_Type_commit(&x_only);
    if (rank == 0) {
        struct point pts[4] = {{1, 0, 0}, {2, 0, 0}, {3, 0, 0}, {4, 0, 0}};
        MPI_Send(pts, 4, x_only, 1, 0, MPI_COMM_WORLD);
    } else {
        int xs[4];
        MPI_Recv(xs, 4, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Type_free(&x_only);
    MPI_Finalize();
    return 0;
}
