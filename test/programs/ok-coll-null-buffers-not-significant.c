/* mpiscope-test
 * ranks: 3
 * expect: none
 */
/* Arguments MPI ignores are not judged: away from the root, a gather's and a reduce's receive buffer and a
 * scatter's send buffer (and the v-variants' count arrays) may be NULL, whatever the counts say; blocking and
 * nonblocking alike. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size, mine, sum = 0, got = -1, all[3] = {0, 0, 0};
    int counts[3] = {1, 1, 1}, displs[3] = {0, 1, 2};
    MPI_Request req;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    mine = rank + 1;
    int root = rank == 0;
    MPI_Gather(&mine, 1, MPI_INT, root ? all : NULL, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Reduce(&mine, root ? &sum : NULL, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Scatter(root ? all : NULL, 1, MPI_INT, &got, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Gatherv(&mine, 1, MPI_INT, root ? all : NULL, root ? counts : NULL, root ? displs : NULL, MPI_INT, 0,
                MPI_COMM_WORLD);
    MPI_Scatterv(root ? all : NULL, root ? counts : NULL, root ? displs : NULL, MPI_INT, &got, 1, MPI_INT, 0,
                 MPI_COMM_WORLD);
    MPI_Igather(&mine, 1, MPI_INT, root ? all : NULL, 1, MPI_INT, 0, MPI_COMM_WORLD, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Ireduce(&mine, root ? &sum : NULL, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    if (root)
        printf("sum %d, gathered %d %d %d of %d\n", sum, all[0], all[1], all[2], size);
    MPI_Finalize();
    return 0;
}
