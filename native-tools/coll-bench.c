/*
 * mpiscope coll-bench: times MPI collectives the way MPIPerf does, next to the usual barrier-then-loop way.
 * Built with the chosen MPI's mpicc by native-tools/build.sh; started by `mpiscope coll-bench`, which reads
 * the JSON document rank 0 writes (docs/coll-bench-format.md) and prints the table.
 *
 *   coll-bench OUT SIZES COLLS REL_SE MIN_LAUNCHES MAX_LAUNCHES SYNC_REPS LOOP_REPS
 *
 * 1. Clocks: rank 0 and each other rank in turn exchange SYNC_REPS ping-pongs; the one with the smallest
 *    round trip gives that rank's offset against rank 0 (its reading minus the midpoint of rank 0's two
 *    readings), and half that round trip bounds the offset's error.
 * 2. Self-check: every rank starts at global instant S + r * STEP on its corrected clock and at once sends
 *    rank 0 a zero-byte message; rank 0 compares each arrival with S + r * STEP plus half the round trip.
 * 3. Each launch: rank 0 broadcasts a start instant in the future; every rank spins until its corrected
 *    clock reaches it, runs the collective once and takes the time from the start instant to its return.
 *    A rank that began later than its clock's error bound after the instant (it arrived late, or was
 *    descheduled while waiting) makes the launch void: discarded, and when it arrived late the next lead
 *    time is doubled.
 *    Per launch the maximum over ranks; the first launch is not counted (lazy initialization); launches
 *    go on until the relative standard error is under REL_SE (at least MIN_LAUNCHES, at most MAX_LAUNCHES).
 * 4. The barrier-then-loop way: MPI_Barrier, LOOP_REPS calls back to back, the mean per call, maximum over
 *    ranks (as IMB and OSU report).
 *
 * MPISCOPE_CB_CLOCK_SKEW (seconds) adds rank * SKEW to this program's clock on every rank: a known skew
 * for the tests, which the offsets must find.
 */
#include <mpi.h>
#include <math.h>
#include <sched.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int nranks, me;
static double skew;
static double offset; /* this rank's clock minus rank 0's */

/* CLOCK_MONOTONIC, not MPI_Wtime: Open MPI 4's MPI_Wtime counts from each process's MPI_Init, so on one
 * machine its ranks' clocks would differ by their start-up times; the monotonic clock is one clock per
 * machine, so on one machine the injected skew is the whole offset, and across machines it is what differs. */
static double local_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9 + skew * me;
}
static double global_now(void) { return local_now() - offset; }

enum coll {
  C_BARRIER, C_BCAST, C_REDUCE, C_ALLREDUCE, C_ALLGATHER, C_ALLGATHERV, C_ALLTOALL, C_ALLTOALLV,
  C_GATHER, C_GATHERV, C_SCATTER, C_SCATTERV, C_REDUCE_SCATTER, C_NCOLL
};
static const char *const coll_names[] = {"Barrier", "Bcast", "Reduce", "Allreduce", "Allgather",
                                         "Allgatherv", "Alltoall", "Alltoallv", "Gather", "Gatherv",
                                         "Scatter", "Scatterv", "Reduce_scatter"};

static char *sbuf, *rbuf;
static int *counts, *displs;

/* One call of collective c with `size` bytes per rank (reductions: size/4 ints, at least one). */
static void run_coll(int c, int size) {
  int ints = size / 4 > 0 ? size / 4 : 1;
  switch (c) {
    case C_BARRIER: MPI_Barrier(MPI_COMM_WORLD); break;
    case C_BCAST: MPI_Bcast(sbuf, size, MPI_BYTE, 0, MPI_COMM_WORLD); break;
    case C_REDUCE: MPI_Reduce(sbuf, rbuf, ints, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD); break;
    case C_ALLREDUCE: MPI_Allreduce(sbuf, rbuf, ints, MPI_INT, MPI_SUM, MPI_COMM_WORLD); break;
    case C_ALLGATHER: MPI_Allgather(sbuf, size, MPI_BYTE, rbuf, size, MPI_BYTE, MPI_COMM_WORLD); break;
    case C_ALLGATHERV:
      MPI_Allgatherv(sbuf, size, MPI_BYTE, rbuf, counts, displs, MPI_BYTE, MPI_COMM_WORLD);
      break;
    case C_ALLTOALL: MPI_Alltoall(sbuf, size, MPI_BYTE, rbuf, size, MPI_BYTE, MPI_COMM_WORLD); break;
    case C_ALLTOALLV:
      MPI_Alltoallv(sbuf, counts, displs, MPI_BYTE, rbuf, counts, displs, MPI_BYTE, MPI_COMM_WORLD);
      break;
    case C_GATHER: MPI_Gather(sbuf, size, MPI_BYTE, rbuf, size, MPI_BYTE, 0, MPI_COMM_WORLD); break;
    case C_GATHERV:
      MPI_Gatherv(sbuf, size, MPI_BYTE, rbuf, counts, displs, MPI_BYTE, 0, MPI_COMM_WORLD);
      break;
    case C_SCATTER: MPI_Scatter(sbuf, size, MPI_BYTE, rbuf, size, MPI_BYTE, 0, MPI_COMM_WORLD); break;
    case C_SCATTERV:
      MPI_Scatterv(sbuf, counts, displs, MPI_BYTE, rbuf, size, MPI_BYTE, 0, MPI_COMM_WORLD);
      break;
    case C_REDUCE_SCATTER: {
      int *rc = malloc(sizeof(int) * (size_t)nranks);
      for (int r = 0; r < nranks; r++) rc[r] = ints;
      MPI_Reduce_scatter(sbuf, rbuf, rc, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
      free(rc);
      break;
    }
  }
}

/* Offsets of every rank against rank 0 (step 1); returns this rank's error bound (half the best round trip). */
static double sync_clocks(int reps, double *rtt_out) {
  double best_rtt = 0, best_off = 0;
  for (int r = 1; r < nranks; r++) {
    if (me == 0) {
      double best = INFINITY, off = 0;
      for (int k = 0; k < reps; k++) {
        double t0 = local_now(), tr;
        MPI_Send(&t0, 1, MPI_DOUBLE, r, 10, MPI_COMM_WORLD);
        MPI_Recv(&tr, 1, MPI_DOUBLE, r, 11, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        double t1 = local_now();
        if (t1 - t0 < best) {
          best = t1 - t0;
          off = tr - (t0 + t1) / 2;
        }
      }
      double res[2] = {off, best};
      MPI_Send(res, 2, MPI_DOUBLE, r, 12, MPI_COMM_WORLD);
    } else if (me == r) {
      for (int k = 0; k < reps; k++) {
        double t0, tr;
        MPI_Recv(&t0, 1, MPI_DOUBLE, 0, 10, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        tr = local_now();
        MPI_Send(&tr, 1, MPI_DOUBLE, 0, 11, MPI_COMM_WORLD);
      }
      double res[2];
      MPI_Recv(res, 2, MPI_DOUBLE, 0, 12, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      best_off = res[0];
      best_rtt = res[1];
    }
  }
  offset = best_off;
  *rtt_out = best_rtt;
  return best_rtt / 2;
}

/* Wait for global instant t: yield the processor while more than 50 µs remain, so that ranks sharing
 * cores (an oversubscribed node) still run, then spin for precision. */
static void spin_until(double t) {
  double left;
  while ((left = t - global_now()) > 0) {
    if (left > 50e-6) sched_yield();
  }
}

/* Student's t quantile (two-sided 95%) for df degrees of freedom: the table up to 30, then the normal. */
static double t95(int df) {
  static const double t[] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
                             2.201,  2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
                             2.080,  2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};
  return df >= 1 && df <= 30 ? t[df - 1] : 1.960;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  if (argc != 9) {
    if (me == 0) fprintf(stderr, "coll-bench: expected 8 arguments (see native-tools/coll-bench.c)\n");
    MPI_Finalize();
    return 2;
  }
  const char *s = getenv("MPISCOPE_CB_CLOCK_SKEW");
  skew = s != NULL ? atof(s) : 0;
  const char *out_path = argv[1];
  double rel_se = atof(argv[4]);
  int min_launches = atoi(argv[5]), max_launches = atoi(argv[6]);
  int sync_reps = atoi(argv[7]), loop_reps = atoi(argv[8]);

  int nsizes = 0, sizes[64];
  for (char *p = strtok(argv[2], ","); p != NULL && nsizes < 64; p = strtok(NULL, ",")) sizes[nsizes++] = atoi(p);
  int ncolls = 0, colls[C_NCOLL];
  for (char *p = strtok(argv[3], ","); p != NULL; p = strtok(NULL, ","))
    for (int c = 0; c < C_NCOLL; c++)
      if (strcmp(p, coll_names[c]) == 0 && ncolls < C_NCOLL) colls[ncolls++] = c;
  int maxsize = 4;
  for (int k = 0; k < nsizes; k++)
    if (sizes[k] > maxsize) maxsize = sizes[k];

  FILE *out = NULL;
  if (me == 0) {
    out = fopen(out_path, "w");
    if (out == NULL) perror(out_path);
  }
  int ok = me != 0 || out != NULL;
  MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (!ok) {
    MPI_Finalize();
    return 2;
  }
  size_t big = (size_t)maxsize * (size_t)nranks;
  sbuf = calloc(big, 1);
  rbuf = calloc(big, 1);
  counts = malloc(sizeof(int) * (size_t)nranks);
  displs = malloc(sizeof(int) * (size_t)nranks);

  /* 1. Clock offsets. */
  double rtt;
  double err = sync_clocks(sync_reps, &rtt);
  double *offs = me == 0 ? malloc(sizeof(double) * (size_t)nranks) : NULL;
  double *errs = me == 0 ? malloc(sizeof(double) * (size_t)nranks) : NULL;
  MPI_Gather(&offset, 1, MPI_DOUBLE, offs, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  MPI_Gather(&err, 1, MPI_DOUBLE, errs, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  char host[MPI_MAX_PROCESSOR_NAME];
  int hlen;
  MPI_Get_processor_name(host, &hlen);
  char *hosts = me == 0 ? malloc((size_t)nranks * MPI_MAX_PROCESSOR_NAME) : NULL;
  MPI_Gather(host, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, hosts, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 0, MPI_COMM_WORLD);

  /* 2. Self-check: a staircase of start instants 2 ms apart, 5 rounds; the arrival error per rank is the
   * smallest over rounds (a rank descheduled in one round is not a clock error). */
  const double step = 2e-3;
  double *check = me == 0 ? malloc(sizeof(double) * (size_t)nranks) : NULL;
  if (me == 0)
    for (int r = 0; r < nranks; r++) check[r] = INFINITY;
  for (int round = 0; round < 5; round++) {
    double start = me == 0 ? global_now() + 5e-3 : 0;
    MPI_Bcast(&start, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (me == 0) {
      for (int k = 1; k < nranks; k++) {
        MPI_Status st;
        MPI_Recv(NULL, 0, MPI_BYTE, MPI_ANY_SOURCE, 20, MPI_COMM_WORLD, &st);
        double arrived = global_now();
        int r = st.MPI_SOURCE;
        /* Expected: its start instant plus one trip (half its best round trip). */
        double e = arrived - (start + r * step) - errs[r];
        if (fabs(e) < fabs(check[r])) check[r] = e;
      }
    } else {
      spin_until(start + me * step);
      MPI_Send(NULL, 0, MPI_BYTE, 0, 20, MPI_COMM_WORLD);
    }
    MPI_Barrier(MPI_COMM_WORLD);
  }

  if (me == 0) {
    fprintf(out, "{\"ranks\": %d, \"hosts\": [", nranks);
    for (int r = 0; r < nranks; r++) fprintf(out, "%s\"%s\"", r ? ", " : "", hosts + (size_t)r * MPI_MAX_PROCESSOR_NAME);
    fprintf(out, "],\n \"clock\": {\"injectedSkewPerRank\": %.9e, \"ranks\": [", skew);
    for (int r = 0; r < nranks; r++)
      fprintf(out, "%s{\"rank\": %d, \"offset\": %.9e, \"error\": %.9e, \"selfCheck\": %.9e}", r ? ", " : "", r,
              offs[r], errs[r], r == 0 ? 0.0 : check[r]);
    fprintf(out, "]},\n \"results\": [");
  }

  /* 3 and 4, per collective and size. */
  int first = 1;
  double *times = malloc(sizeof(double) * (size_t)(max_launches + 1));
  for (int ci = 0; ci < ncolls; ci++) {
    int c = colls[ci];
    for (int si = 0; si < nsizes; si++) {
      int size = c == C_BARRIER ? 0 : sizes[si];
      if (c == C_BARRIER && si > 0) break;
      for (int r = 0; r < nranks; r++) {
        counts[r] = size;
        displs[r] = r * size;
      }
      int n = 0, late = 0, launches = 0;
      double lead = 1e-3, mean = 0, sd = 0;
      for (;;) {
        double start = me == 0 ? global_now() + lead : 0;
        MPI_Bcast(&start, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        /* late[0]: the rank reached the instant only after it had passed (the lead time was too short);
         * late[1]: it began after the instant by more than its clock's error bound plus 2 µs for reading the
         * clock (it arrived late, or was descheduled while waiting). Either voids the launch. */
        int late_flags[2] = {global_now() > start, 0}, any_late[2];
        spin_until(start);
        late_flags[1] = global_now() - start > err + 2e-6;
        run_coll(c, size);
        double t = global_now() - start;
        double tmax;
        MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        MPI_Allreduce(late_flags, any_late, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        launches++;
        if (launches == 1) continue; /* the first call: lazy initialization, not counted */
        if (any_late[0] || any_late[1]) {
          late++;
          if (any_late[0] && lead < 0.5) lead *= 2;
        } else {
          times[n++] = tmax;
        }
        int stop = 0;
        if (n >= min_launches) {
          double sum = 0, sq = 0;
          for (int k = 0; k < n; k++) sum += times[k];
          mean = sum / n;
          for (int k = 0; k < n; k++) sq += (times[k] - mean) * (times[k] - mean);
          sd = n > 1 ? sqrt(sq / (n - 1)) : 0;
          stop = mean > 0 && sd / sqrt(n) / mean < rel_se;
        }
        if (n >= max_launches || launches >= 4 * max_launches) stop = 1;
        /* Every rank decides alike: the statistics are those of the same maxima. */
        if (stop) break;
      }
      if (n >= 2) {
        double sum = 0, sq = 0;
        for (int k = 0; k < n; k++) sum += times[k];
        mean = sum / n;
        for (int k = 0; k < n; k++) sq += (times[k] - mean) * (times[k] - mean);
        sd = sqrt(sq / (n - 1));
      }
      double se = n > 1 ? sd / sqrt(n) : 0;
      /* Barrier-then-loop. */
      MPI_Barrier(MPI_COMM_WORLD);
      double t0 = global_now();
      for (int k = 0; k < loop_reps; k++) run_coll(c, size);
      double per = (global_now() - t0) / loop_reps, per_max;
      MPI_Reduce(&per, &per_max, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
      if (me == 0 && n < 2) {
        /* Every launch but at most one had a late rank: no mean to give (the file says null). */
        fprintf(out,
                "%s\n  {\"collective\": \"%s\", \"bytes\": %d, \"launches\": %d, \"discardedLate\": %d, "
                "\"mean\": null, \"standardError\": null, \"ci95\": null, \"barrierLoopMean\": %.9e}",
                first ? "" : ",", coll_names[c], size, n, late, per_max);
      } else if (me == 0) {
        fprintf(out,
                "%s\n  {\"collective\": \"%s\", \"bytes\": %d, \"launches\": %d, \"discardedLate\": %d, "
                "\"mean\": %.9e, \"standardError\": %.9e, \"ci95\": [%.9e, %.9e], \"barrierLoopMean\": %.9e}",
                first ? "" : ",", coll_names[c], size, n, late, mean, se, mean - t95(n - 1) * se,
                mean + t95(n - 1) * se, per_max);
      }
      if (me == 0) fflush(out);
      first = 0;
    }
  }
  if (me == 0) {
    fprintf(out, "\n ]}\n");
    fclose(out);
  }
  MPI_Finalize();
  return 0;
}
