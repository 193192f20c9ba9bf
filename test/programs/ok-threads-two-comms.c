/* mpiscope-test
 * ranks: 4
 * expect: none
 */
/* A hybrid code with MPI_THREAD_MULTIPLE: on every rank a communication thread runs a ring
 * exchange on its own duplicate of MPI_COMM_WORLD while the main thread runs reductions and
 * a halo swap on another duplicate. Each communicator is used by one thread only, so the two
 * threads' messages and collectives can never match each other's. */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>

#define RING_ROUNDS 200
#define MAIN_ROUNDS 200

static MPI_Comm ring_comm, main_comm;
static int rank, size;

static void *ring_thread(void *arg)
{
    double token = rank, in;
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    for (int r = 0; r < RING_ROUNDS; r++) {
        MPI_Request req;
        MPI_Irecv(&in, 1, MPI_DOUBLE, prev, r, ring_comm, &req);
        MPI_Send(&token, 1, MPI_DOUBLE, next, r, ring_comm);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        token = 0.5 * (token + in);
    }
    *(double *)arg = token;
    return NULL;
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (provided < MPI_THREAD_MULTIPLE) {
        if (rank == 0)
            printf("MPI_THREAD_MULTIPLE not provided (%d); running the threads one after the other\n",
                   provided);
    }
    /* Both duplicates are made by the main thread, in the same order on every rank. */
    MPI_Comm_dup(MPI_COMM_WORLD, &ring_comm);
    MPI_Comm_dup(MPI_COMM_WORLD, &main_comm);

    double ring_result = 0.0;
    pthread_t tid;
    int threaded = provided == MPI_THREAD_MULTIPLE;
    if (threaded)
        pthread_create(&tid, NULL, ring_thread, &ring_result);
    else
        ring_thread(&ring_result);

    double value = rank + 1.0, sum = 0.0, halo[2], mine[2];
    int left = (rank + size - 1) % size, right = (rank + 1) % size;
    for (int r = 0; r < MAIN_ROUNDS; r++) {
        MPI_Allreduce(&value, &sum, 1, MPI_DOUBLE, MPI_SUM, main_comm);
        mine[0] = mine[1] = value / sum;
        MPI_Sendrecv(&mine[0], 1, MPI_DOUBLE, left, 0, &halo[1], 1, MPI_DOUBLE, right, 0, main_comm,
                     MPI_STATUS_IGNORE);
        MPI_Sendrecv(&mine[1], 1, MPI_DOUBLE, right, 1, &halo[0], 1, MPI_DOUBLE, left, 1, main_comm,
                     MPI_STATUS_IGNORE);
        value = 0.5 * value + 0.25 * (halo[0] + halo[1]) * sum;
    }
    if (threaded)
        pthread_join(tid, NULL);

    double ring_sum;
    MPI_Reduce(&ring_result, &ring_sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("threads: ring %.4f, main %.4f\n", ring_sum, value);
    MPI_Comm_free(&ring_comm);
    MPI_Comm_free(&main_comm);
    MPI_Finalize();
    return 0;
}
