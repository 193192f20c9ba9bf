/* mpiscope-test
 * ranks: 2
 * expect: rma-race warning lines 28,29
 */
/* Rank 0 accumulates two floats and then two ints with MPI_SUM into the same two elements of rank 1's window in
 * one fence epoch. MPI orders the accumulates of one origin only "on a per-datatype granularity" (MPI-4.1
 * §12.7.2) and makes them atomic only on one predefined type: a float and an int over the same four bytes share
 * no element, so the window may hold the float sum of the int bits, the int sum of the float bits, or a mix. One
 * origin's accumulates of one basic type (whatever their ops) stay ordered and are not reported. A warning, not an
 * error: Open MPI and MPICH apply one origin's accumulates in order, and real codes rely on it (NWChem). */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, *base, ints[2] = {1, 2};
    float floats[2] = {1.5f, 2.5f};
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_allocate(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    for (int i = 0; i < 4; i++)
        base[i] = 0;

    MPI_Win_fence(0, win);
    if (rank == 0) {
        MPI_Accumulate(floats, 2, MPI_FLOAT, 1, 0, 2, MPI_FLOAT, MPI_SUM, win);
        MPI_Accumulate(ints, 2, MPI_INT, 1, 0, 2, MPI_INT, MPI_SUM, win);
    }
    MPI_Win_fence(0, win);

    if (rank == 1) printf("element 0 is %d\n", base[0]);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
