/* Times MPI_Allgather for bench/topo-allgather: BLOCK bytes per rank, REPS calls after two warm-up calls
 * (the library computes its numbering at the first call). Each rank times its own calls; rank 0 prints the
 * slowest rank's mean per call, and checks the gathered blocks so that a fast wrong answer cannot pass.
 *   allgather-time BLOCK REPS */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int n, me;
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  long block = argc > 1 ? atol(argv[1]) : 65536;
  int reps = argc > 2 ? atoi(argv[2]) : 20;
  if (block <= 0 || reps <= 0) {
    if (me == 0) fprintf(stderr, "allgather-time: BLOCK and REPS must be positive\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  unsigned char *s = malloc((size_t)block), *r = malloc((size_t)block * (size_t)n);
  memset(s, me + 1, (size_t)block);
  for (int k = 0; k < 2; k++) MPI_Allgather(s, (int)block, MPI_BYTE, r, (int)block, MPI_BYTE, MPI_COMM_WORLD);
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  for (int k = 0; k < reps; k++) MPI_Allgather(s, (int)block, MPI_BYTE, r, (int)block, MPI_BYTE, MPI_COMM_WORLD);
  double per = (MPI_Wtime() - t0) / reps, slowest;
  int bad = 0, any;
  for (int q = 0; q < n && !bad; q++)
    if (r[(size_t)q * (size_t)block] != q + 1 || r[(size_t)q * (size_t)block + (size_t)block - 1] != q + 1) bad = 1;
  MPI_Reduce(&per, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  MPI_Reduce(&bad, &any, 1, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD);
  if (me == 0) printf(any ? "allgather WRONG\n" : "seconds per call %.9f\n", slowest);
  free(s);
  free(r);
  MPI_Finalize();
  return 0;
}
