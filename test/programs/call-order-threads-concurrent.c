/* mpiscope-test
 * ranks: 2
 * expect: call-order lines 20,33
 * mpi: openmpi
 */
/* Rank 0 asks for MPI_THREAD_SERIALIZED (one thread in MPI at a time) and then has two threads in MPI at
 * once: the main thread and a helper each send rank 1 a synchronous message. Rank 1 probes for both
 * messages before receiving either, so neither MPI_Ssend can return before the other has been called:
 * the two calls always overlap. Fix: request MPI_THREAD_MULTIPLE (and check `provided`), or put one lock
 * around every MPI call. Open MPI only: MPICH (ch4:ucx) crashes on the overlapping calls (a UCX assertion). */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>

static int helper_value = 1;

static void *helper(void *arg)
{
    (void)arg;
    MPI_Ssend(&helper_value, 1, MPI_INT, 1, 1, MPI_COMM_WORLD);
    return NULL;
}

int main(int argc, char **argv)
{
    int rank, provided, value = 0;

    MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        pthread_t thread;
        pthread_create(&thread, NULL, helper, NULL);
        MPI_Ssend(&value, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
        pthread_join(thread, NULL);
    } else if (rank == 1) {
        int a, b;
        MPI_Probe(0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Probe(0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(&a, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(&b, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return 0;
}
