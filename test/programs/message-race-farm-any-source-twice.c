/* mpiscope-test
 * ranks: 4
 * expect: message-race lines 39,72
 */
/* The task farm of ok-task-farm-probe.c, with results sent in two messages: first the length
 * (TAG_LEN), then the list (TAG_RESULT). The master takes the length from MPI_ANY_SOURCE, but
 * then also the list from MPI_ANY_SOURCE instead of from the worker whose length it just got:
 * when two workers answer at once it can pair one worker's length with another's list. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define TASKS 300
#define MAXLEN 64
enum { TAG_TASK = 1, TAG_RESULT = 2, TAG_STOP = 3, TAG_LEN = 4 };

static int divisors(int n, int *out)
{
    int k = 0;
    out[k++] = n; /* first element: the task number, so the master knows where to store it */
    for (int d = 1; d <= n && k < MAXLEN; d++)
        if (n % d == 0)
            out[k++] = d;
    return k;
}

static void master(int workers)
{
    int next = 1, outstanding = 0;
    long checksum = 0;
    int *count = calloc(TASKS + 1, sizeof(int));
    /* Prime every worker with one task. */
    for (int w = 1; w <= workers && next <= TASKS; w++, next++, outstanding++)
        MPI_Send(&next, 1, MPI_INT, w, TAG_TASK, MPI_COMM_WORLD);
    while (outstanding > 0) {
        MPI_Status st;
        int len, buf[MAXLEN];
        MPI_Recv(&len, 1, MPI_INT, MPI_ANY_SOURCE, TAG_LEN, MPI_COMM_WORLD, &st);
        MPI_Recv(buf, MAXLEN, MPI_INT, MPI_ANY_SOURCE, TAG_RESULT, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        outstanding--;
        count[buf[0]] = len - 1;
        for (int i = 1; i < len; i++)
            checksum += buf[i];
        if (next <= TASKS) {
            MPI_Send(&next, 1, MPI_INT, st.MPI_SOURCE, TAG_TASK, MPI_COMM_WORLD);
            next++;
            outstanding++;
        }
    }
    for (int w = 1; w <= workers; w++)
        MPI_Send(NULL, 0, MPI_INT, w, TAG_STOP, MPI_COMM_WORLD);
    int most = 1;
    for (int t = 1; t <= TASKS; t++)
        if (count[t] > count[most])
            most = t;
    printf("farm: %d tasks, divisor sum %ld, most divisors: %d (%d)\n", TASKS, checksum, most,
           count[most]);
    free(count);
}

static void worker(void)
{
    int done = 0, out[MAXLEN];
    while (1) {
        int task;
        MPI_Status st;
        MPI_Recv(&task, 1, MPI_INT, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
        if (st.MPI_TAG == TAG_STOP)
            break;
        int len = divisors(task, out);
        MPI_Send(&len, 1, MPI_INT, 0, TAG_LEN, MPI_COMM_WORLD);
        MPI_Send(out, len, MPI_INT, 0, TAG_RESULT, MPI_COMM_WORLD);
        done++;
    }
    if (done == 0)
        printf("a worker got no task\n");
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank == 0)
        master(size - 1);
    else
        worker();
    MPI_Finalize();
    return 0;
}
