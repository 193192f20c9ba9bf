/* mpiscope-test
 * ranks: 2
 * expect: call-order lines 20
 */
/* Every rank asks for MPI_THREAD_FUNNELED (only the thread that called MPI_Init_thread may call MPI);
 * then on rank 0 a helper thread asks for the size of MPI_COMM_WORLD. The main thread is joined on the
 * helper, so the calls never overlap and the program runs fine on both MPIs here, but the MPI standard
 * allows an MPI built for FUNNELED to break on any call from another thread. Fix: make the call on the
 * main thread and hand the result to the helper, or request MPI_THREAD_SERIALIZED (and check
 * `provided`). */
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
    if (rank == 0) {
        pthread_create(&thread, NULL, helper, NULL);
        pthread_join(thread, NULL);
        printf("helper saw %d ranks\n", helper_size);
    }
    MPI_Finalize();
    return 0;
}
