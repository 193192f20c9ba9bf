/* mpiscope example: a ring that deadlocks.
 *
 * Every rank first waits for a message from its left neighbour, then passes a token to its right
 * neighbour. Because every rank receives first, nobody ever sends: all ranks block in MPI_Recv
 * forever. Press F5 (launch configuration "mpiscope: ring") and mpiscope marks the MPI_Recv line of
 * each rank with the deadlock. The fix is to let rank 0 send first (see the comment below).
 *
 * Build: mpicc -g -O0 -o ring ring.c      Run: mpiscope run -np 3 ./ring
 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int left = (rank + size - 1) % size;
  int right = (rank + 1) % size;
  int token = -1;

  /* Bug: every rank receives before it sends. Fix: on rank 0, send first, then receive. */
  MPI_Recv(&token, 1, MPI_INT, left, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  token = rank;
  MPI_Send(&token, 1, MPI_INT, right, 0, MPI_COMM_WORLD);

  printf("rank %d received token from rank %d\n", rank, left);
  MPI_Finalize();
  return 0;
}
