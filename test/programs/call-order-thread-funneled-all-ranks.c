/* mpiscope-test
 * ranks: 3
 * expect: call-order lines 20
 */
/* Every rank asks for MPI_THREAD_FUNNELED (only the thread that called MPI_Init_thread may call MPI);
 * then on every rank a helper thread asks for the size of MPI_COMM_WORLD. The same mistake at the same
 * call on three ranks is one finding with a location per rank, however late one rank's events reach
 * the analyzer. The main thread is joined on the helper, so the calls never overlap and the program
 * runs fine on both MPIs here. Fix: make the call on the main thread and hand the result to the
 * helper, or request MPI_THREAD_SERIALIZED (and check `provided`). */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>

static int helper_size = -1;

static void *helper(void *arg)
{
    (void)arg;
    MPI_Comm_size(MPI_COMM_WORLD, &helper_size);
    return NULL;
}

int main(int argc, char **argv)
{
    int rank, provided;
    pthread_t thread;

    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    pthread_create(&thread, NULL, helper, NULL);
    pthread_join(thread, NULL);
    if (rank == 0)
        printf("helper saw %d ranks\n", helper_size);
    MPI_Finalize();
    return 0;
}
