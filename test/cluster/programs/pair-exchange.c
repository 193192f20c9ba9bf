/* Traffic with a structure that the launcher's default placement gets wrong: rank i exchanges a lot with
 * its partner i + N/2 (mod N) and a little with its ring neighbours. Filling hosts in rank order puts every
 * partner on another host; `mpiscope map` should put partners together.
 *   pair-exchange [BYTES [ROUNDS]]   (default 262144 bytes, 40 rounds)
 * Prints "rank R on HOST" and, from rank 0, the wall time of the exchange loop. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int n, me, len;
  char host[MPI_MAX_PROCESSOR_NAME];
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Get_processor_name(host, &len);
  int bytes = argc > 1 ? atoi(argv[1]) : 262144;
  int rounds = argc > 2 ? atoi(argv[2]) : 40;
  char *sbuf = calloc((size_t)bytes, 1), *rbuf = calloc((size_t)bytes, 1);
  char small_s[64] = {0}, small_r[64];
  int partner = (me + n / 2) % n;
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  for (int r = 0; r < rounds; r++) {
    MPI_Sendrecv(sbuf, bytes, MPI_BYTE, partner, 1, rbuf, bytes, MPI_BYTE, partner, 1, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    MPI_Sendrecv(small_s, 64, MPI_BYTE, (me + 1) % n, 2, small_r, 64, MPI_BYTE, (me + n - 1) % n, 2,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  double t = MPI_Wtime() - t0;
  printf("rank %d on %s\n", me, host);
  if (me == 0) printf("exchange took %.6f s\n", t);
  free(sbuf);
  free(rbuf);
  MPI_Finalize();
  return 0;
}
