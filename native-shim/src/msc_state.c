/* Global state, the lazy start of recording, and the ENTER/EXIT records every wrapper emits.
 *
 * Recording starts at the first intercepted MPI call of the process (normally MPI_Init), or, in the program
 * mpiscope launched, as soon as it is loaded (msc_early_hello): a process that merely inherits LD_PRELOAD
 * (mpirun, srun, a shell spawned by system()) never calls MPI and so never connects. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "msc_shim.h"

_Atomic int msc_state;
_Atomic int msc_attention;
_Atomic int msc_after_finalize;
_Atomic int msc_before_init = 1;
_Atomic uint32_t msc_seq;
__thread int msc_tls_depth __attribute__((tls_model("initial-exec")));
__thread uint32_t msc_tls_seq __attribute__((tls_model("initial-exec")));

/* A new block of seqs for this thread (msc_shim.h): [base + 1, base + MSC_SEQ_BLOCK), never 0. Returns the
 * first. */
uint32_t msc_seq_refill(void)
{
    uint32_t base = atomic_fetch_add_explicit(&msc_seq, MSC_SEQ_BLOCK, memory_order_relaxed);
    msc_tls_seq = base + 2;
    return base + 1;
}

/* The call this thread is in (from its ENTER to its EXIT), for the fatal-error handler (msc_lifecycle.c). */
__thread msc_call *msc_tls_call __attribute__((tls_model("initial-exec")));
/* Which thread this is, for ENTER flags bit1 (msc_enter_flags): 0 not known yet, 1 the MPI_Init thread, 2 another
 * thread. Computed once per thread (on its first recorded call after MPI_Init returned) so the hot path pays one
 * TLS load. */
__thread uint8_t msc_tls_thread_kind __attribute__((tls_model("initial-exec")));
/* msc_exit_quiet (msc_shim.h): quiet calls of this thread so far; set once a thread other than MPI_Init's called MPI. */
__thread unsigned msc_tls_quiet __attribute__((tls_model("initial-exec")));
_Atomic int msc_other_threads;
static pthread_t init_thread;
static _Atomic int init_thread_known;

static pthread_once_t init_once = PTHREAD_ONCE_INIT;

static void lazy_init_once(void)
{
    const char *url = getenv("MPISCOPE_URL");
    const char *token = getenv("MPISCOPE_TOKEN");
    if (!url || !*url) {
        atomic_store(&msc_state, MSC_STATE_OFF);
        return;
    }
    const char *ring_env = getenv("MPISCOPE_RING_RECORDS");
    unsigned records = ring_env ? (unsigned)strtoul(ring_env, NULL, 10) : 0;
    if (records == 0) records = 1u << 16;
    char why[256] = "out of memory for the record ring";
    if (!msc_ring_init(records) || !msc_sender_connect(url, token ? token : "", why, sizeof why)) {
        /* One line, and the program runs on unrecorded: the shim never breaks a job. It names the rank and
         * the host, since the user reads it among the lines of every rank, and the analyzer cannot say it. */
        char host[256] = "?";
        gethostname(host, sizeof host - 1);
        int rank = msc_launcher_rank();
        char who[64] = "this process";
        if (rank >= 0) snprintf(who, sizeof who, "rank %d", rank);
        /* A refused certificate is no routing problem: the advice differs. */
        const char *advice = strstr(why, "TLS") || strstr(why, "libssl")
                                 ? "the ranks pin the certificate mpiscope run --tls made: something else answers at "
                                   "that address, or the variables were not forwarded as given"
                                 : "the ranks must reach that address: choose one with mpiscope run --listen ADDR";
        fprintf(stderr, "mpiscope: %s on host %s cannot reach the analyzer at %s: %s; it runs without recording (%s)\n",
                who, host, url, why, advice);
        atomic_store(&msc_state, MSC_STATE_OFF);
        return;
    }
    const char *checks = getenv("MPISCOPE_CHECKS");
    msc_checks_on = !(checks && strcmp(checks, "0") == 0);
    msc_checksum_init();
    msc_lifecycle_install();
    /* One CLOCK record first, so the analyzer can align this rank's monotonic clock with the others'. */
    int64_t w = msc_clock_init();
    msc_emit(MSC_KIND_CLOCK, 0, 0, 0, msc_clock_anchor(), 0, &w, 1, NULL, 0);
    msc_attention_update();
    atomic_store(&msc_state, MSC_STATE_ON);
}

/* A rank of a launcher says hello as soon as it is loaded, before any MPI call: if its calls never reach the
 * wrappers (a binding that calls PMPI_ directly, an MPI linked in statically), the analyzer still knows the
 * rank started and can say that its calls are missing, instead of waiting in silence. Only in the program
 * mpiscope launched (MPISCOPE_PROGRAM): a process the rank starts (a shell of system(), a helper tool)
 * inherits LD_PRELOAD and the launcher's variables, and must stay inert until it calls MPI itself. */
__attribute__((constructor)) static void msc_early_hello(void)
{
    const char *url = getenv("MPISCOPE_URL");
    const char *program = getenv("MPISCOPE_PROGRAM");
    if (!url || !*url || !program || !*program || msc_launcher_rank() < 0) return;
    char self[4096], want[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0 || !realpath(program, want)) return;
    self[n] = 0;
    if (strcmp(self, want) != 0) return;
    pthread_once(&init_once, lazy_init_once);
}

int msc_lazy_init(void)
{
    /* A thread already inside the shim (describing a handle with PMPI calls) must not start it again. */
    if (msc_tls_depth) return 0;
    pthread_once(&init_once, lazy_init_once);
    return atomic_load(&msc_state) == MSC_STATE_ON;
}

void msc_mark_init_thread(void)
{
    init_thread = pthread_self();
    msc_tls_thread_kind = 1;
    atomic_store_explicit(&init_thread_known, 1, memory_order_release);
}

uint8_t msc_thread_kind_slow(void)
{
    /* Before MPI_Init returned nothing is known (and nothing is cached: the answer comes later). */
    if (!atomic_load_explicit(&init_thread_known, memory_order_acquire)) return 0;
    msc_tls_thread_kind = pthread_equal(pthread_self(), init_thread) ? 1 : 2;
    if (msc_tls_thread_kind == 2) atomic_store_explicit(&msc_other_threads, 1, memory_order_relaxed);
    return msc_tls_thread_kind;
}

/* Polls that find nothing (MPI_Test, Testany, Testall, Iprobe, Improbe, Request_get_status with a false flag,
 * Testsome with an outcount of 0) change nothing the analyzer
 * follows, and a polling loop makes millions of them, more than the analyzer can take (the ring fills and
 * records are dropped). A poll's ENTER is held back (msc_held_call) until the call turns out to matter: it
 * found something, failed, or emits another record (msc_emit sends the ENTER first). A poll that found nothing
 * is not recorded at all, except one in POLL_KEEP per thread, so that a polling rank is still seen. Not while
 * a debugger is attached (attention): a held call must have been announced. */
#define POLL_KEEP 1024
__thread msc_call *msc_held_call __attribute__((tls_model("initial-exec")));
static __thread unsigned tls_polls __attribute__((tls_model("initial-exec")));

static int is_poll(int func)
{
    return func == MSC_FN_MPI_Test || func == MSC_FN_MPI_Testany || func == MSC_FN_MPI_Testall ||
           func == MSC_FN_MPI_Testsome || func == MSC_FN_MPI_Iprobe || func == MSC_FN_MPI_Improbe ||
           func == MSC_FN_MPI_Request_get_status;
}

/* A held poll returned without error and found nothing (Testsome's outcount is its second EXIT word). */
static int found_nothing(const msc_call *c)
{
    if (c->nx < 1 || c->x[0] != MPI_SUCCESS) return 0;
    if (c->func == MSC_FN_MPI_Testsome) return c->nx >= 2 && c->x[1] == 0;
    return !(c->xflags & MSC_FLAG_TRUE);
}

/* An ENTER whose one array is of requests and fits with its words in a head and an EXT record (a Waitall of up to
 * 9, a Startall…): the array's count and handles are laid out here as the words that follow, which is what
 * msc_ring.c's write_records puts into the records, so that msc_emit takes its one- or two-record path instead of
 * the general one with its cursor per word (a Waitall of two: ~310 instructions for its ENTER, callgrind,
 * bench/shim-overhead). Out of line: the other ENTERs stay a tail call. */
static __attribute__((noinline)) void emit_enter_requests(const msc_call *c, int flags)
{
    int64_t w[MSC_HEAD_WORDS + MSC_EXT_WORDS];
    int n = 0;
    for (int i = 0; i < c->nw; i++) w[n++] = c->w[i];
    const MPI_Request *r = (const MPI_Request *)c->arr[0].ptr;
    w[n++] = c->arr[0].n;
    for (int i = 0; i < c->arr[0].n; i++) w[n++] = msc_w_MPI_Request(r[i]);
    msc_emit(MSC_KIND_ENTER, flags, c->func, c->seq, c->time, c->site, w, n, NULL, 0);
}

static void emit_enter(const msc_call *c)
{
    int flags = msc_enter_flags() | c->eflags;
    if (MSC_UNLIKELY(c->narr == 1) && c->arr[0].kind == MSC_ARR_REQUEST &&
        c->nw + 1 + c->arr[0].n <= MSC_HEAD_WORDS + MSC_EXT_WORDS) {
        emit_enter_requests(c, flags);
        return;
    }
    msc_emit(MSC_KIND_ENTER, flags, c->func, c->seq, c->time, c->site, c->w, c->nw, c->arr, c->narr);
}

void msc_emit_held(void)
{
    msc_call *c = msc_held_call;
    msc_held_call = NULL;
    c->held = MSC_HELD_NONE;
    /* A held poll may have kept COMPLETEs back already (msc_complete_deferred): they follow its ENTER, so they stay
     * kept while the ENTER is written (msc_emit would write them first), and the caller's msc_emit writes them. */
    msc_call *pending = msc_pending_call;
    msc_pending_call = NULL;
    emit_enter(c);
    if (c->done_id) {
        int64_t w[6] = { c->done_id, -1, -1, 0, MPI_SUCCESS, 0 };
        c->done_id = 0;
        msc_emit_complete(0, c->func, c->seq, c->time, c->site, w);
    }
    msc_pending_call = pending;
}

/* COMPLETE records wait for their call's EXIT: a Waitall of n requests used to make n + 1 reservations after
 * PMPI returned (each a CAS on the ring's head, a locked instruction), now one. A poll whose ENTER is still held (a
 * Test that found something) keeps them too, and its exit writes ENTER, COMPLETEs and EXIT in one reservation
 * (msc_emit_call); anything emitted in between writes the held ENTER first, then these (msc_emit). Not behind
 * another call's held ENTER, nor a local call's (msc_exit_local writes no COMPLETEs): those are written at once. */
__thread msc_call *msc_pending_call __attribute__((tls_model("initial-exec")));

void msc_emit_pending(void)
{
    if (MSC_UNLIKELY(msc_held_call != NULL)) msc_emit_held(); /* a held poll's ENTER goes before its COMPLETEs */
    msc_call *c = msc_pending_call;
    msc_pending_call = NULL;
    if (atomic_load_explicit(&msc_state, memory_order_relaxed) == MSC_STATE_ON) msc_emit_completes(c, 0);
    c->ncomp = 0;
}

void msc_complete_deferred(msc_call *c, int flags, const int64_t *w)
{
    uint64_t time = msc_exit_stamp(c);
    msc_call *held = msc_held_call;
    if ((held != NULL && (held != c || c->held != MSC_HELD_POLL)) ||
        (msc_pending_call != NULL && msc_pending_call != c)) {
        msc_emit_complete(flags, c->func, c->seq, time, c->site, w);
        return;
    }
    if (msc_pending_call != c) c->ncomp = 0;
    else if (c->ncomp == MSC_MAX_COMPLETES) msc_emit_pending();
    c->comp_flags[c->ncomp] = (uint8_t)flags;
    __builtin_memcpy(c->comp[c->ncomp], w, sizeof c->comp[0]);
    c->ncomp++;
    msc_pending_call = c;
}

void msc_enter(msc_call *c)
{
    msc_tls_call = c;
    c->held = MSC_HELD_NONE;
    c->done_id = 0;
    int attention = atomic_load_explicit(&msc_attention, memory_order_relaxed);
    if (is_poll(c->func) && !attention && ++tls_polls % POLL_KEEP != 0) {
        c->held = MSC_HELD_POLL;
        msc_held_call = c;
        return;
    }
    emit_enter(c);
    if (MSC_UNLIKELY(attention)) msc_pause_point(c);
}

/* The EXIT of a call with kept-back COMPLETE records: all in one reservation when the EXIT is one record. */
static __attribute__((noinline)) void exit_with_completes(msc_call *c, int st)
{
    msc_pending_call = NULL;
    if (st != MSC_STATE_ON) return; /* recording went off during the call: they go nowhere, like the EXIT */
    msc_exit_stamp(c);
    if (!c->xarr && c->nx <= MSC_HEAD_WORDS) {
        msc_emit_completes(c, 1);
        return;
    }
    msc_emit_completes(c, 0);
    msc_arr xa = { MSC_ARR_INT | MSC_ARR_RAW, c->xarr, c->xarr_n };
    msc_emit(MSC_KIND_EXIT, c->xflags, c->func, c->seq, c->xtime, c->site, c->x, c->nx, &xa, c->xarr ? 1 : 0);
}

void msc_exit(msc_call *c)
{
    int st = atomic_load_explicit(&msc_state, memory_order_relaxed);
    if (msc_held_call == c) {
        msc_held_call = NULL;
        if (msc_pending_call == c) {
            /* A poll that completed something: ENTER, COMPLETEs and EXIT in one reservation. */
            msc_pending_call = NULL;
            if (MSC_LIKELY(st == MSC_STATE_ON)) msc_emit_call(c, msc_enter_flags());
            c->ncomp = 0;
        }
        /* A poll that found nothing: the call is forgotten (its seq is simply not seen). */
        else if (!(c->held == MSC_HELD_POLL && found_nothing(c)) && MSC_LIKELY(st == MSC_STATE_ON))
            msc_emit_pair(c, msc_enter_flags());
        c->held = MSC_HELD_NONE;
    } else if (msc_pending_call == c) {
        exit_with_completes(c, st);
    } else if (MSC_LIKELY(st == MSC_STATE_ON)) {
        msc_arr xa = { MSC_ARR_INT | MSC_ARR_RAW, c->xarr, c->xarr_n };
        msc_emit(MSC_KIND_EXIT, c->xflags, c->func, c->seq, msc_exit_stamp(c), c->site, c->x, c->nx, &xa,
                 c->xarr ? 1 : 0);
    }
    msc_tls_call = NULL;
    msc_tls_depth = 0;
}

/* Pause, continue and breakpoints: msc_control.c. */
