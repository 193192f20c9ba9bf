/*
 * mpiscope net-test: measures the delay of messages between every pair of ranks (after the PARUS
 * network_test). Built with the chosen MPI's mpicc by native-tools/build.sh; started by `mpiscope net-test`,
 * which turns what rank 0 writes into the documented JSON file (docs/net-test-format.md).
 *
 *   net-test OUT MODE BEGIN END STEP REPS NOISE_LEN NOISE_COUNT NOISE_PROCS SEED
 *
 * Rank 0 writes OUT as text lines: "host RANK NAME", then per message length "len BYTES" followed by one
 * line per ordered pair "I J MIN MEDIAN MEAN STDDEV" (seconds; delay of a message from rank I to rank J).
 * The Node side checks every argument first; the checks here only keep a bad hand-made call from hanging.
 */
#include <mpi.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum mode { ONE_TO_ONE, ALL_TO_ALL, SEND_RECV_AND_RECV_SEND, ASYNC_ONE_TO_ONE, NOISE_BLOCKING, NOISE };

static const char *const mode_names[] = {"one_to_one",       "all_to_all", "send_recv_and_recv_send",
                                         "async_one_to_one", "noise_blocking", "noise"};

static int nranks, me;
static int reps;
static double *samples; /* reps samples of one cell */

/* The test's own clock. MPISCOPE_NT_CLOCK_SKEW (seconds) shifts it on this rank only; it never changes a
 * delay (a difference of two readings on one rank), which is what makes it safe to leave in. */
static double clock_skew;
static double now(void) { return MPI_Wtime() + clock_skew; }

/* A barrier that sleeps while it waits. Between measured pairs every rank waits here; a rank waiting in
 * MPI_Barrier busy-polls, and with more ranks than cores (several emulated hosts on one machine, or an
 * oversubscribed node) the pollers take the cores from the two ranks being measured, whose delay then
 * becomes the scheduler's time slice (7-8 ms measured with 6 ranks on 2 cores) instead of the network's.
 * Testing every 50 us keeps a waiting rank's share of a core near zero. */
static void quiet_barrier(void) {
  MPI_Request rq;
  int done = 0;
  MPI_Ibarrier(MPI_COMM_WORLD, &rq);
  struct timespec nap = {0, 50 * 1000};
  for (;;) {
    MPI_Test(&rq, &done, MPI_STATUS_IGNORE);
    if (done) break;
    nanosleep(&nap, NULL);
  }
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* min, median, mean, standard deviation of samples[0..n) into out[0..4). */
static void stats(double *s, int n, double *out) {
  qsort(s, (size_t)n, sizeof *s, cmp_double);
  double sum = 0, sq = 0;
  for (int k = 0; k < n; k++) sum += s[k];
  double mean = sum / n;
  for (int k = 0; k < n; k++) sq += (s[k] - mean) * (s[k] - mean);
  out[0] = s[0];
  out[1] = n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
  out[2] = mean;
  out[3] = n > 1 ? sqrt(sq / (n - 1)) : 0;
}

/* cell[(i*N+j)*4 + k]: this rank's statistics of the cells it measured; zero elsewhere (summed at rank 0). */
static double *cell;
static void store(int i, int j) { stats(samples, reps, &cell[((size_t)i * nranks + j) * 4]); }

/* One message i -> j, timed at the receiver j from announcing it is ready (a zero-byte message to i) to the
 * completion of its receive: the sender cannot start early, so the time is one zero-byte trip plus the
 * message's own. `async` uses Isend/Irecv/Wait instead of Send/Recv. */
static void timed_pair(int i, int j, char *sbuf, char *rbuf, int len, int async) {
  for (int r = 0; r < reps; r++) {
    if (me == j) {
      double t0 = now();
      if (async) {
        MPI_Request rq[2];
        MPI_Irecv(rbuf, len, MPI_BYTE, i, 1, MPI_COMM_WORLD, &rq[0]);
        MPI_Isend(NULL, 0, MPI_BYTE, i, 0, MPI_COMM_WORLD, &rq[1]);
        MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
      } else {
        MPI_Send(NULL, 0, MPI_BYTE, i, 0, MPI_COMM_WORLD);
        MPI_Recv(rbuf, len, MPI_BYTE, i, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      }
      samples[r] = now() - t0;
    } else if (me == i) {
      MPI_Recv(NULL, 0, MPI_BYTE, j, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      if (async) {
        MPI_Request rq;
        MPI_Isend(sbuf, len, MPI_BYTE, j, 1, MPI_COMM_WORLD, &rq);
        MPI_Wait(&rq, MPI_STATUS_IGNORE);
      } else {
        MPI_Send(sbuf, len, MPI_BYTE, j, 1, MPI_COMM_WORLD);
      }
    }
  }
  if (me == j) store(i, j);
}

/* The same pseudo-random sequence on every rank (xorshift64*), so every rank picks the same noisy ranks
 * without a message. */
static uint64_t rng_state;
static uint32_t rng_next(void) {
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  return (uint32_t)((rng_state * 2685821657736338717ULL) >> 32);
}

/* While pair (i, j) is measured, `nprocs` ranks other than i and j, picked at random, exchange `count`
 * messages of `noise_len` bytes with a partner (they pair up in the order picked); the rest stay silent.
 * `blocking` uses Sendrecv, otherwise Isend/Irecv/Waitall. Returns after this rank's noise is done. */
static void noise_round(int i, int j, int nprocs, int noise_len, int count, int blocking, char *nbuf_s,
                        char *nbuf_r) {
  int *pool = malloc(sizeof(int) * (size_t)nranks);
  int n = 0;
  for (int k = 0; k < nranks; k++)
    if (k != i && k != j) pool[n++] = k;
  /* Partial Fisher-Yates: the first nprocs entries of pool are the picks. */
  for (int k = 0; k < nprocs; k++) {
    int pick = k + (int)(rng_next() % (uint32_t)(n - k));
    int t = pool[k];
    pool[k] = pool[pick];
    pool[pick] = t;
  }
  int partner = -1;
  for (int k = 0; k < nprocs; k++)
    if (pool[k] == me) partner = pool[k ^ 1];
  free(pool);
  if (partner < 0) return;
  for (int c = 0; c < count; c++) {
    if (blocking) {
      MPI_Sendrecv(nbuf_s, noise_len, MPI_BYTE, partner, 2, nbuf_r, noise_len, MPI_BYTE, partner, 2,
                   MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      MPI_Request rq[2];
      MPI_Irecv(nbuf_r, noise_len, MPI_BYTE, partner, 2, MPI_COMM_WORLD, &rq[0]);
      MPI_Isend(nbuf_s, noise_len, MPI_BYTE, partner, 2, MPI_COMM_WORLD, &rq[1]);
      MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
    }
  }
}

/* Every rank at once: each posts a receive from every other rank, then sends to every other rank; the
 * delay of the message from s is the time from posting its receive to its completion as seen by
 * Waitany. */
static void all_to_all(char *sbuf, char *rbufs, int len) {
  MPI_Request *rq = malloc(sizeof(MPI_Request) * 2 * (size_t)nranks);
  double *t = malloc(sizeof(double) * (size_t)nranks * (size_t)reps);
  for (int r = 0; r < reps; r++) {
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = now();
    for (int s = 0; s < nranks; s++)
      rq[s] = s == me ? MPI_REQUEST_NULL
                      : (MPI_Irecv(rbufs + (size_t)s * (size_t)len, len, MPI_BYTE, s, 1, MPI_COMM_WORLD, &rq[s]),
                         rq[s]);
    for (int k = 1; k < nranks; k++) {
      int d = (me + k) % nranks;
      MPI_Isend(sbuf, len, MPI_BYTE, d, 1, MPI_COMM_WORLD, &rq[nranks + d]);
    }
    rq[nranks + me] = MPI_REQUEST_NULL;
    for (int k = 1; k < nranks; k++) {
      int idx;
      MPI_Waitany(nranks, rq, &idx, MPI_STATUS_IGNORE);
      t[(size_t)idx * (size_t)reps + (size_t)r] = now() - t0;
    }
    MPI_Waitall(nranks, rq + nranks, MPI_STATUSES_IGNORE);
  }
  for (int s = 0; s < nranks; s++) {
    if (s == me) continue;
    memcpy(samples, t + (size_t)s * (size_t)reps, sizeof(double) * (size_t)reps);
    store(s, me);
  }
  free(t);
  free(rq);
}

/* Both directions per pair, N/2 disjoint pairs at a time (the round-robin schedule: N-1 rounds in which
 * every rank has exactly one partner, hence an even number of ranks). Each side times a ping-pong of `len`
 * bytes each way that it starts, and halves it: [me][partner] is measured by me. */
static void send_recv_and_recv_send(char *sbuf, char *rbuf, int len) {
  for (int round = 0; round < nranks - 1; round++) {
    /* Circle method: rank nranks-1 stays, the others rotate. */
    int partner;
    if (me == nranks - 1) partner = round;
    else if (me == round) partner = nranks - 1;
    else partner = ((2 * round - me) % (nranks - 1) + (nranks - 1)) % (nranks - 1);
    for (int first = 0; first < 2; first++) {
      int starter = first == 0 ? (me < partner ? me : partner) : (me < partner ? partner : me);
      for (int r = 0; r < reps; r++) {
        if (starter == me) {
          double t0 = now();
          MPI_Send(sbuf, len, MPI_BYTE, partner, 1, MPI_COMM_WORLD);
          MPI_Recv(rbuf, len, MPI_BYTE, partner, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
          samples[r] = (now() - t0) / 2;
        } else {
          MPI_Recv(rbuf, len, MPI_BYTE, partner, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
          MPI_Send(sbuf, len, MPI_BYTE, partner, 1, MPI_COMM_WORLD);
        }
      }
      if (starter == me) store(me, partner);
    }
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  if (argc != 11) {
    if (me == 0) fprintf(stderr, "net-test: expected 10 arguments (see native-tools/net-test.c)\n");
    MPI_Finalize();
    return 2;
  }
  const char *out_path = argv[1];
  int mode = -1;
  for (int m = 0; m < 6; m++)
    if (strcmp(argv[2], mode_names[m]) == 0) mode = m;
  int begin = atoi(argv[3]), end = atoi(argv[4]), step = atoi(argv[5]);
  reps = atoi(argv[6]);
  int noise_len = atoi(argv[7]), noise_count = atoi(argv[8]), noise_procs = atoi(argv[9]);
  rng_state = (uint64_t)strtoull(argv[10], NULL, 10) | 1;
  const char *skew = getenv("MPISCOPE_NT_CLOCK_SKEW");
  clock_skew = skew != NULL ? atof(skew) : 0;
  if (mode < 0 || begin < 0 || end < begin || step < 1 || reps < 1 || nranks < 2 ||
      (mode == SEND_RECV_AND_RECV_SEND && nranks % 2 != 0) ||
      ((mode == NOISE || mode == NOISE_BLOCKING) && (noise_procs % 2 != 0 || noise_procs > nranks - 2))) {
    if (me == 0) fprintf(stderr, "net-test: bad arguments\n");
    MPI_Finalize();
    return 2;
  }

  char host[MPI_MAX_PROCESSOR_NAME];
  int hlen;
  MPI_Get_processor_name(host, &hlen);
  char *hosts = me == 0 ? malloc((size_t)nranks * MPI_MAX_PROCESSOR_NAME) : NULL;
  MPI_Gather(host, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, hosts, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 0,
             MPI_COMM_WORLD);
  FILE *out = NULL;
  if (me == 0) {
    out = fopen(out_path, "w");
    if (out == NULL) perror(out_path);
  }
  int ok = out != NULL || me != 0;
  MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (!ok) {
    MPI_Finalize();
    return 2;
  }
  if (me == 0)
    for (int r = 0; r < nranks; r++) fprintf(out, "host %d %s\n", r, hosts + (size_t)r * MPI_MAX_PROCESSOR_NAME);

  size_t cells = (size_t)nranks * (size_t)nranks * 4;
  cell = malloc(sizeof(double) * cells);
  double *total = me == 0 ? malloc(sizeof(double) * cells) : NULL;
  samples = malloc(sizeof(double) * (size_t)reps);
  size_t maxlen = (size_t)end > 0 ? (size_t)end : 1;
  char *sbuf = calloc(maxlen, 1);
  char *rbuf = calloc(maxlen * (size_t)nranks, 1);
  size_t nl = (size_t)noise_len > 0 ? (size_t)noise_len : 1;
  char *nbuf_s = calloc(nl, 1), *nbuf_r = calloc(nl, 1);

  for (int len = begin; len <= end; len += step) {
    memset(cell, 0, sizeof(double) * cells);
    switch (mode) {
      case ONE_TO_ONE:
      case ASYNC_ONE_TO_ONE:
        for (int i = 0; i < nranks; i++)
          for (int j = 0; j < nranks; j++)
            if (i != j) {
              timed_pair(i, j, sbuf, rbuf, len, mode == ASYNC_ONE_TO_ONE);
              /* One pair at a time: nobody else's traffic is in flight while (i, j) is measured. */
              quiet_barrier();
            }
        break;
      case NOISE:
      case NOISE_BLOCKING:
        for (int i = 0; i < nranks; i++)
          for (int j = 0; j < nranks; j++)
            if (i != j) {
              for (int r = 0; r < reps; r++) {
                quiet_barrier();
                int saved = reps;
                reps = 1;
                double *keep = samples;
                double one;
                samples = &one;
                /* The pair's one sample while the noisy ranks exchange their messages. */
                if (me == i || me == j) {
                  timed_pair(i, j, sbuf, rbuf, len, 0);
                } else {
                  noise_round(i, j, noise_procs, noise_len, noise_count, mode == NOISE_BLOCKING, nbuf_s,
                              nbuf_r);
                }
                /* Every rank draws the same picks; the pair ranks draw them too to stay in step. */
                if (me == i || me == j) {
                  for (int k = 0; k < noise_procs; k++) (void)rng_next();
                }
                samples = keep;
                reps = saved;
                if (me == j) samples[r] = one;
              }
              if (me == j) store(i, j);
            }
        break;
      case ALL_TO_ALL:
        all_to_all(sbuf, rbuf, len);
        break;
      case SEND_RECV_AND_RECV_SEND:
        send_recv_and_recv_send(sbuf, rbuf, len);
        break;
    }
    MPI_Reduce(cell, total, (int)cells, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (me == 0) {
      fprintf(out, "len %d\n", len);
      for (int i = 0; i < nranks; i++)
        for (int j = 0; j < nranks; j++) {
          if (i == j) continue;
          const double *c = &total[((size_t)i * nranks + j) * 4];
          fprintf(out, "%d %d %.9e %.9e %.9e %.9e\n", i, j, c[0], c[1], c[2], c[3]);
        }
    }
    if (step == 0) break;
  }
  if (me == 0) {
    fprintf(out, "end\n");
    fclose(out);
  }
  MPI_Finalize();
  return 0;
}
