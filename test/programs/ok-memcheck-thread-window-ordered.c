/* mpiscope-test
 * ranks: 2
 * mode: memcheck
 * expect: none
 */
/* The correct twin of rma-race-passive-thread-store-vs-put.c (MPI_THREAD_FUNNELED): rank 0's worker thread fills
 * the window, and the main thread waits for it before the barrier that precedes rank 1's lock and put; after the
 * second barrier (the put completed by rank 1's unlock) two workers read the window and store into its other
 * half, while rank 1 reads rank 0's first half with MPI_Get (two reads, and stores to bytes no one else touches).
 * The worker threads stay alive while the main thread's MPI calls send their accesses. */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>

static int *base;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int done[3], finish;

static void wait_for(int *flag)
{
    pthread_mutex_lock(&mu);
    while (!*flag)
        pthread_cond_wait(&cv, &mu);
    pthread_mutex_unlock(&mu);
}

static void say(int *flag)
{
    pthread_mutex_lock(&mu);
    *flag = 1;
    pthread_cond_broadcast(&cv);
    pthread_mutex_unlock(&mu);
}

static void *filler(void *arg)
{
    (void)arg;
    for (int i = 0; i < 8; i++)
        base[i] = 10 + i;
    say(&done[0]);
    wait_for(&finish);
    return NULL;
}

static void *reader(void *arg)
{
    int k = *(int *)arg, sum = 0;
    for (int i = 0; i < 4; i++)
        sum += base[i];
    base[4 + 2 * k] = sum;
    base[5 + 2 * k] = k;
    say(&done[1 + k]);
    wait_for(&finish);
    return NULL;
}

int main(int argc, char **argv)
{
    int rank, provided, one = 1, got[4], ids[2] = { 0, 1 };
    MPI_Win win;
    pthread_t th[3];

    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_allocate(8 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    if (rank == 0) {
        pthread_create(&th[0], NULL, filler, NULL);
        wait_for(&done[0]);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1) {
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
        MPI_Put(&one, 1, MPI_INT, 0, 2, 1, MPI_INT, win);
        MPI_Win_unlock(0, win);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        pthread_create(&th[1], NULL, reader, &ids[0]);
        pthread_create(&th[2], NULL, reader, &ids[1]);
        wait_for(&done[1]);
        wait_for(&done[2]);
    } else {
        MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
        MPI_Get(got, 4, MPI_INT, 0, 0, 4, MPI_INT, win);
        MPI_Win_unlock(0, win);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        say(&finish);
        for (int i = 0; i < 3; i++)
            pthread_join(th[i], NULL);
        printf("%d %d\n", base[2], base[4]);
    } else {
        printf("%d\n", got[2]);
    }
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
