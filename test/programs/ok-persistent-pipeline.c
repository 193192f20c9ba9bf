/* mpiscope-test
 * ranks: 3
 * expect: none
 */
/* A software pipeline: rank 0 produces blocks, the middle ranks transform them, the last rank
 * consumes them. Every stage sets up its channels once with MPI_Recv_init/MPI_Send_init on two
 * alternating buffers (double buffering) and restarts them with MPI_Startall each block, so a
 * stage receives block b+1 while it still sends block b. The requests are freed at the end. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#define BLOCK 256
#define BLOCKS 400

int main(int argc, char **argv)
{
    int rank, size;
    double in[2][BLOCK], out[2][BLOCK];
    MPI_Request recv[2], send[2];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int prev = rank > 0 ? rank - 1 : MPI_PROC_NULL;
    int next = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
    for (int k = 0; k < 2; k++) {
        MPI_Recv_init(in[k], BLOCK, MPI_DOUBLE, prev, k, MPI_COMM_WORLD, &recv[k]);
        MPI_Send_init(out[k], BLOCK, MPI_DOUBLE, next, k, MPI_COMM_WORLD, &send[k]);
    }

    double total = 0.0;
    int sending = 0; /* is send[(b-1)%2] active? */
    MPI_Start(&recv[0]);
    for (int b = 0; b < BLOCKS; b++) {
        int k = b % 2;
        MPI_Wait(&recv[k], MPI_STATUS_IGNORE);
        /* Pre-post the next block's receive into the other buffer. */
        if (b + 1 < BLOCKS)
            MPI_Start(&recv[1 - k]);
        /* out[k] was last sent two blocks ago; that send was completed below. */
        for (int i = 0; i < BLOCK; i++) {
            double x = rank == 0 ? (double)(b * BLOCK + i) : in[k][i];
            out[k][i] = 0.5 * x + 1.0;
            total += out[k][i];
        }
        if (sending)
            MPI_Wait(&send[1 - k], MPI_STATUS_IGNORE);
        MPI_Start(&send[k]);
        sending = 1;
    }
    MPI_Wait(&send[(BLOCKS - 1) % 2], MPI_STATUS_IGNORE);

    double sum = 0.0;
    MPI_Reduce(&total, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("pipeline: %d blocks through %d stages, sum %.1f\n", BLOCKS, size, sum);
    for (int k = 0; k < 2; k++) {
        MPI_Request_free(&recv[k]);
        MPI_Request_free(&send[k]);
    }
    MPI_Finalize();
    return 0;
}
