/* mpiscope-test
 * ranks: 2
 * mode: memcheck
 * expect: rma-race lines 32,56
 */
/* MPI_THREAD_FUNNELED: on rank 0 a worker thread fills the first half of the window while the main thread makes
 * the MPI calls; rank 1 puts into element 2 under an exclusive lock that nothing orders with the worker's stores.
 * The worker stays alive (it waits for the main thread's word to finish) while the main thread's barrier sends the
 * window's accesses, so its run of stores is another thread's when they go out. Rank 0 must finish the worker's
 * stores before a barrier that precedes rank 1's lock, or lock its own window exclusively around them. */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>

static int *base;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int filled, finish;

static void wait_for(int *flag)
{
    pthread_mutex_lock(&mu);
    while (!*flag)
        pthread_cond_wait(&cv, &mu);
    pthread_mutex_unlock(&mu);
}

static void *worker(void *arg)
{
    (void)arg;
    for (int i = 0; i < 4; i++)
        base[i] = 10 + i;
    pthread_mutex_lock(&mu);
    filled = 1;
    pthread_cond_broadcast(&cv);
    pthread_mutex_unlock(&mu);
    wait_for(&finish);
    return NULL;
}

int main(int argc, char **argv)
{
    int rank, provided, one = 1;
    MPI_Win win;
    pthread_t th;

    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_allocate(8 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        pthread_create(&th, NULL, worker, NULL);
        wait_for(&filled);
    } else {
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
        MPI_Put(&one, 1, MPI_INT, 0, 2, 1, MPI_INT, win);
        MPI_Win_unlock(0, win);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        pthread_mutex_lock(&mu);
        finish = 1;
        pthread_cond_broadcast(&cv);
        pthread_mutex_unlock(&mu);
        pthread_join(th, NULL);
        printf("%d\n", base[2]);
    }
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
