/* Per-call cost of the shim on one rank, with no peer to wait for: every kernel talks to itself, so what
 * is measured is the MPI library's own path plus whatever the shim adds, not a network or a scheduler.
 *
 *   percall [ITERS]           prints "NAME NS_PER_ITERATION CALLS_PER_ITERATION CPU_NS_PER_ITERATION" per kernel,
 *                             best of 5 each: wall time, and this thread's CPU time (CLOCK_THREAD_CPUTIME_ID),
 *                             which leaves out the time the thread was preempted: on a loaded machine, where
 *                             the shim's sender thread and the sink also want a core, the wall time of the
 *                             point-to-point kernels varied 2-5x between runs and their CPU time by a few %
 *   percall --callgrind ITERS under valgrind --tool=callgrind --collect-atstart=no: runs each kernel once
 *                             to warm up, then once with collection on and dumps the counts under the
 *                             kernel's name (callgrind.out.PID.N, "desc: Trigger: Client Request: NAME");
 *                             prints "NAME ITERATIONS" per kernel.
 *
 * The sweep kernels (sweep-BYTES) are irecv-isend-waitall with messages of 8 B to 16 MiB: the message-size
 * sweep. The send-buffer checksum is computed at the Isend and again at its completion, over the whole message
 * up to MPISCOPE_CHECKSUM_EXACT_BYTES (256 KiB by default) and over a sample of at most 24 KiB above it
 * (native-shim/src/msc_checksum.c). They run fewer iterations as the message grows (ITERS * 64 / BYTES, at
 * least 8).
 *
 * Collection is toggled by this thread only, so the counts are the application thread's instructions: the
 * shim's sender thread works on another core and is not in them. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if defined(__has_include)
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#define HAVE_CALLGRIND 1
#endif
#endif

#define REPS 5
#define NOINLINE __attribute__((noinline))

static int me;
static char sbuf[64], rbuf[64];
static char *big_s, *big_r;
static char *heap_s, *heap_r; /* small malloc'd blocks: buffers in the heap take the shim's heap-buffer check */
static int sweep_bytes;

/* The cheapest call there is: the shim's fixed cost shows plainly. */
static NOINLINE void k_comm_rank(int n)
{
    int q;
    for (int i = 0; i < n; i++) MPI_Comm_rank(MPI_COMM_WORLD, &q);
}

/* The cheapest call the shim records whole: its fixed cost per call. (MPI_Comm_rank, above, is one of the quiet
 * calls the shim samples in a loop, past a thread's first 64: that kernel measures the sampled path.) */
static NOINLINE void k_initialized(int n)
{
    int q;
    for (int i = 0; i < n; i++) MPI_Initialized(&q);
}

/* A nonblocking exchange with itself: a receive, a send, one Waitall completing both. */
static NOINLINE void k_irecv_isend_waitall(int n)
{
    for (int i = 0; i < n; i++) {
        MPI_Request r[2];
        MPI_Irecv(rbuf, 8, MPI_CHAR, me, 1, MPI_COMM_WORLD, &r[0]);
        MPI_Isend(sbuf, 8, MPI_CHAR, me, 1, MPI_COMM_WORLD, &r[1]);
        MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
    }
}

/* irecv-isend-waitall with buffers in the heap (malloc) instead of static storage. */
static NOINLINE void k_irecv_isend_waitall_heap(int n)
{
    for (int i = 0; i < n; i++) {
        MPI_Request r[2];
        MPI_Irecv(heap_r, 8, MPI_CHAR, me, 5, MPI_COMM_WORLD, &r[0]);
        MPI_Isend(heap_s, 8, MPI_CHAR, me, 5, MPI_COMM_WORLD, &r[1]);
        MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
    }
}

/* The same with one Wait per request: Isend + Wait is what the send-buffer checksum sits on. */
static NOINLINE void k_isend_wait(int n)
{
    for (int i = 0; i < n; i++) {
        MPI_Request r[2];
        MPI_Irecv(rbuf, 8, MPI_CHAR, me, 2, MPI_COMM_WORLD, &r[0]);
        MPI_Isend(sbuf, 8, MPI_CHAR, me, 2, MPI_COMM_WORLD, &r[1]);
        MPI_Wait(&r[1], MPI_STATUS_IGNORE);
        MPI_Wait(&r[0], MPI_STATUS_IGNORE);
    }
}

/* One blocking call that sends and receives. */
static NOINLINE void k_sendrecv(int n)
{
    for (int i = 0; i < n; i++)
        MPI_Sendrecv(sbuf, 8, MPI_CHAR, me, 3, rbuf, 8, MPI_CHAR, me, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

/* Collectives on one rank: what the shim's collective path costs (its argument checks above all), with the
 * library's own work as small as it gets. An unrooted reduction, a rooted gather (the root-dependent rules and
 * checks) and a v-variant (a count array of the communicator's size). */
static NOINLINE void k_allreduce(int n)
{
    int x = me, y;
    for (int i = 0; i < n; i++) MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
}

static NOINLINE void k_gather(int n)
{
    int x = me, y;
    for (int i = 0; i < n; i++) MPI_Gather(&x, 1, MPI_INT, &y, 1, MPI_INT, 0, MPI_COMM_WORLD);
}

static NOINLINE void k_alltoallv(int n)
{
    int x = me, y, one = 1, zero = 0;
    for (int i = 0; i < n; i++) MPI_Alltoallv(&x, &one, &zero, MPI_INT, &y, &one, &zero, MPI_INT, MPI_COMM_WORLD);
}

/* irecv-isend-waitall with sweep_bytes bytes. */
static NOINLINE void k_sweep(int n)
{
    for (int i = 0; i < n; i++) {
        MPI_Request r[2];
        MPI_Irecv(big_r, sweep_bytes, MPI_CHAR, me, 4, MPI_COMM_WORLD, &r[0]);
        MPI_Isend(big_s, sweep_bytes, MPI_CHAR, me, 4, MPI_COMM_WORLD, &r[1]);
        MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
    }
}

typedef struct kernel {
    const char *name;
    void (*run)(int);
    int calls; /* MPI calls per iteration */
    int bytes; /* sweep kernels: the message size */
} kernel;

static const kernel kernels[] = {
    { "comm_rank", k_comm_rank, 1 },
    { "initialized", k_initialized, 1 },
    { "irecv-isend-waitall", k_irecv_isend_waitall, 3 },
    { "irecv-isend-waitall-heap", k_irecv_isend_waitall_heap, 3 },
    { "irecv-isend-wait-wait", k_isend_wait, 4 },
    { "sendrecv-self", k_sendrecv, 1 },
    { "allreduce-1", k_allreduce, 1 },
    { "gather-1", k_gather, 1 },
    { "alltoallv-1", k_alltoallv, 1 },
    { "sweep-8", k_sweep, 3, 8 },
    { "sweep-512", k_sweep, 3, 512 },
    { "sweep-32768", k_sweep, 3, 32768 },
    { "sweep-4096", k_sweep, 3, 4096 },
    { "sweep-262144", k_sweep, 3, 262144 },
    { "sweep-1048576", k_sweep, 3, 1048576 },
    { "sweep-4194304", k_sweep, 3, 4194304 },
    { "sweep-16777216", k_sweep, 3, 16777216 },
};

static double clock_ns(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}
static double now(void) { return clock_ns(CLOCK_MONOTONIC); }
static double cpu_now(void) { return clock_ns(CLOCK_THREAD_CPUTIME_ID); }

int main(int argc, char **argv)
{
    int callgrind = argc > 1 && strcmp(argv[1], "--callgrind") == 0;
    int iters = argc > 1 + callgrind ? atoi(argv[1 + callgrind]) : 200000;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    /* Written, so that the pages are real (calloc's untouched pages all map the one zero page, and reading
     * them costs next to nothing). */
    big_s = malloc(16 << 20);
    big_r = malloc(16 << 20);
    heap_s = malloc(64);
    heap_r = malloc(64);
    if (!big_s || !big_r || !heap_s || !heap_r) MPI_Abort(MPI_COMM_WORLD, 2);
    for (int i = 0; i < 64; i++) heap_s[i] = (char)i, heap_r[i] = 0;
    for (int i = 0; i < 16 << 20; i++) big_s[i] = (char)(i * 7), big_r[i] = 0;
    for (size_t k = 0; k < sizeof kernels / sizeof kernels[0]; k++) {
        const kernel *K = &kernels[k];
        int all = iters;
        if (K->bytes) {
            sweep_bytes = K->bytes;
            iters = K->bytes > 64 ? all / (K->bytes / 64) : all;
            if (iters < 8) iters = 8;
        }
        if (callgrind) {
#ifdef HAVE_CALLGRIND
            K->run(iters / 10 + 1);
            CALLGRIND_ZERO_STATS;
            CALLGRIND_TOGGLE_COLLECT;
            K->run(iters);
            CALLGRIND_TOGGLE_COLLECT;
            CALLGRIND_DUMP_STATS_AT(K->name);
            printf("%s %d\n", K->name, iters);
            iters = all;
#else
            fprintf(stderr, "percall: built without valgrind/callgrind.h (apt-get install valgrind)\n");
            MPI_Abort(MPI_COMM_WORLD, 2);
#endif
            continue;
        }
        double best = 1e30, best_cpu = 1e30;
        K->run(iters / 10 + 1);
        for (int rep = 0; rep < REPS; rep++) {
            double t0 = now(), c0 = cpu_now();
            K->run(iters);
            double t = (now() - t0) / iters, c = (cpu_now() - c0) / iters;
            if (t < best) best = t;
            if (c < best_cpu) best_cpu = c;
        }
        printf("%s %.1f %d %.1f\n", K->name, best, K->calls, best_cpu);
        iters = all;
    }
    MPI_Finalize();
    return 0;
}
