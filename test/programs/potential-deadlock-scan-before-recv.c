/* mpiscope-test
 * ranks: 2
 * expect: potential-deadlock warning lines 21,24
 * mpi: openmpi
 */
/* Rank 0 takes part in a prefix sum and then sends rank 1 a token; rank 1 receives the token first. Rank 0's
 * part of MPI_Scan needs nobody's data, so it may return at once and the run completes; where MPI_Scan
 * synchronizes, rank 0 waits in it for rank 1, which waits in MPI_Recv for rank 0. MPICH 4.0's MPI_Scan does
 * synchronize: there the job really deadlocks (a `deadlock` finding), so this program is for Open MPI only. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, v, prefix = 0, token = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    v = rank + 1;
    if (rank == 0) {
        token = 1;
        MPI_Scan(&v, &prefix, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        MPI_Send(&token, 1, MPI_INT, 1, 8, MPI_COMM_WORLD);
    } else {
        MPI_Recv(&token, 1, MPI_INT, 0, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Scan(&v, &prefix, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
