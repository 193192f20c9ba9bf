/* mpiscope-test
 * ranks: 3
 * expect: none
 */
/* Rank 0 serves requests from every worker in whatever order they arrive. All receives are
 * posted by one call with one tag and size, and the replies go back to the sender that Waitany
 * names, so the arrival order cannot change the result: no message race. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define ROUNDS 3

int main(int argc, char **argv)
{
    int rank, size;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank == 0) {
        int workers = size - 1;
        int *job = calloc(workers, sizeof(int));
        MPI_Request *reqs = calloc(workers, sizeof(MPI_Request));
        for (int round = 0; round < ROUNDS; round++) {
            for (int w = 0; w < workers; w++)
                MPI_Irecv(&job[w], 1, MPI_INT, w + 1, 0, MPI_COMM_WORLD, &reqs[w]);
            for (int done = 0; done < workers; done++) {
                int index;
                MPI_Waitany(workers, reqs, &index, MPI_STATUS_IGNORE);
                int answer = job[index] * 2;
                MPI_Send(&answer, 1, MPI_INT, index + 1, 1, MPI_COMM_WORLD);
            }
        }
        free(job);
        free(reqs);
    } else {
        for (int round = 0; round < ROUNDS; round++) {
            int job = rank * 10 + round, answer;
            MPI_Send(&job, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
            MPI_Recv(&answer, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (answer != 2 * job)
                printf("rank %d: bad answer %d\n", rank, answer);
        }
    }
    MPI_Finalize();
    return 0;
}
