/* mpiscope-test
 * ranks: 3
 * expect: none
 * mpi: mpich
 */
/* Three MPI-4 persistent collectives (MPICH 4 here) initialized in the same order on every rank with a
 * blocking MPI_Barrier between them, then started together each step with MPI_Startall: a broadcast
 * from rank 1, a sum, and a gather of a different count from each rank (the root's recvcounts say
 * each rank's own). Every initialization agrees in function, root, counts, types and op. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int cfg[2] = {0, 0}, mine = 0, total = 0, part[3] = {0, 0, 0}, all[6] = {0};
    int counts[3] = {1, 2, 3}, displs[3] = {0, 1, 3};
    MPI_Request reqs[3];
    MPI_Bcast_init(cfg, 2, MPI_INT, 1, MPI_COMM_WORLD, MPI_INFO_NULL, &reqs[0]);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Allreduce_init(&mine, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &reqs[1]);
    MPI_Gatherv_init(part, rank + 1, MPI_INT, all, counts, displs, MPI_INT, 0, MPI_COMM_WORLD, MPI_INFO_NULL,
                     &reqs[2]);
    for (int step = 0; step < 3; step++) {
        if (rank == 1) {
            cfg[0] = step;
            cfg[1] = step * 2;
        }
        mine = rank + step;
        for (int i = 0; i <= rank; i++)
            part[i] = rank * 10 + i;
        MPI_Startall(3, reqs);
        MPI_Waitall(3, reqs, MPI_STATUSES_IGNORE);
    }
    for (int i = 0; i < 3; i++)
        MPI_Request_free(&reqs[i]);
    if (rank == 0)
        printf("total %d, cfg %d, all[5] %d\n", total, cfg[1], all[5]);
    MPI_Finalize();
    return 0;
}
