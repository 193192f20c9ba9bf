/* The memcheck build's ownership of memory (compiled only into libmpiscope-memcheck.so, -DMSC_MEMCHECK; the
 * default libmpiscope.so has none of this on its path).
 *
 * A program built with `mpiscope cc/cxx/fc` reports each of its loads and stores to the memcheck runtime
 * (native-shim/mcrt/), which asks one question: is the access inside an interval published here? This file
 * publishes what pending operations own and withdraws it when they complete:
 *
 *  - a receive (Irecv, Imrecv, the Start of a Recv_init, a nonblocking collective's receive buffer) owns its
 *    buffer against loads and stores until its request completes;
 *  - a send (Isend and modes, the Start of a Send_init, a nonblocking collective's send buffer) owns it against
 *    stores;
 *  - a one-sided access owns its origin buffer until the epoch is closed or flushed (or its request, for the
 *    R* forms, completes): against stores for Put and Accumulate, against loads and stores for Get's buffer and
 *    the result buffer of the fetching accumulates;
 *  - window memory, from its creation to MPI_Win_free: the rank's own loads and stores of it are collected as byte
 *    ranges, for the analyzer to compare with what other ranks accessed at the same time (an rma-race needs both
 *    sides). In a fence epoch (from a fence that opens one to the next fence) and in an exposure epoch (MPI_Win_post
 *    to MPI_Win_wait, or to an MPI_Win_test that returns true) they are sent at the epoch's end, named by the epoch;
 *    outside them (epoch 0: where other ranks' passive-target accesses land, under MPI_Win_lock/lock_all) they are
 *    sent before the rank's next MPI call enters (msc_mc_passive_flush), so that the analyzer orders them with
 *    that rank's messages and collectives like a call made there.
 *
 * A hit (the runtime calls back on the accessing thread) becomes a FINDING record whose site is the access's
 * return address, resolved to file:line like a call site, and whose words name the owning operation's call
 * site: [check, -1, owner's site, byte offset in the owned buffer, size | store << 32]; the header's function
 * is the owner's. A pending operation is reported once (its first offending access; it is then no longer
 * watched until started again), and each (access, owner site) pair once per process: a loop that writes a pending
 * buffer a thousand times, or each iteration, is one finding; a store found so is not reported again by the
 * send's checksum. Accesses made while the thread is inside an MPI call (user reduction
 * functions, the shim itself) are MPI's, not the program's, and never reported. */
#ifdef MSC_MEMCHECK
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <string.h>

#include "msc_mcrt.h"
#include "msc_shim.h"

static int (*rt_add)(uintptr_t, uintptr_t, int, uint64_t);
static void (*rt_remove)(int);
static void (*rt_batch)(int);
static int mc_on;
static pthread_mutex_t mc_mutex = PTHREAD_MUTEX_INITIALIZER;

/* ---- what each function does with its buffers, from the spec (msc_func_what) ---- */
enum {
    W_NONE,
    W_BCAST,
    W_GATHER,
    W_GATHERV,
    W_SCATTER,
    W_SCATTERV,
    W_ALLGATHER,
    W_ALLGATHERV,
    W_ALLTOALL,
    W_ALLTOALLV,
    W_REDUCE,
    W_ALLREDUCE, /* and scan, exscan: one count of the datatype on each side */
    W_REDUCE_SCATTER,
    W_REDUCE_SCATTER_BLOCK,
    W_PUT, /* put, accumulate: origin read by MPI */
    W_GET,
    W_GET_ACC, /* get_accumulate, fetch_and_op, compare_and_swap: origin read, result written */
};
static unsigned char what[MSC_FN_COUNT];

static int what_of(const char *w)
{
    static const struct {
        const char *name;
        int w;
    } t[] = { { "bcast", W_BCAST },
              { "gather", W_GATHER },
              { "gatherv", W_GATHERV },
              { "scatter", W_SCATTER },
              { "scatterv", W_SCATTERV },
              { "allgather", W_ALLGATHER },
              { "allgatherv", W_ALLGATHERV },
              { "alltoall", W_ALLTOALL },
              { "alltoallv", W_ALLTOALLV },
              { "reduce", W_REDUCE },
              { "allreduce", W_ALLREDUCE },
              { "scan", W_ALLREDUCE },
              { "exscan", W_ALLREDUCE },
              { "reduce_scatter", W_REDUCE_SCATTER },
              { "reduce_scatter_block", W_REDUCE_SCATTER_BLOCK },
              { "put", W_PUT },
              { "accumulate", W_PUT },
              { "get", W_GET },
              { "get_accumulate", W_GET_ACC },
              { "fetch_and_op", W_GET_ACC },
              { "compare_and_swap", W_GET_ACC } };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        if (!strcmp(t[i].name, w)) return t[i].w;
    return W_NONE;
}

/* ---- owned intervals ---- */
#define OWN_MAX 65536
enum { OWN_FREE = 0, OWN_REQ, OWN_RMA };
typedef struct own {
    int state;
    uint16_t gen;
    int check; /* the FINDING check a hit is */
    int rt;    /* the runtime's handle */
    uint64_t key; /* request word (OWN_REQ, and R* accesses), 0 for an RMA access without request */
    int64_t win;  /* window word (OWN_RMA) */
    int target;   /* OWN_RMA: target rank in the window */
    int func;
    uint64_t site;
    int modes; /* what the program may not do (MSC_MC_READ: MPI writes the memory, so loads are out too) */
    uintptr_t lo, hi, base;
    MPI_Datatype dt; /* with gaps: a hit must meet a byte of the type map (msc_layout_touches) */
    int64_t count;
    /* A send's request and the caller's variable: a store found here makes its checksum moot (on_hit). */
    MPI_Request req;
    const MPI_Request *where;
    /* A request MPI handed out already complete (shared): its order among them (see msc_mc_completed). */
    uint64_t shared;
} own;
static uint64_t shared_made;
/* The request being published (msc_mc_post, msc_mc_started), for own_add; mc_mutex held. */
static MPI_Request pub_req = MPI_REQUEST_NULL;
static const MPI_Request *pub_where;
static own owns[OWN_MAX];
/* Free entries below own_top, as a stack (entries above a lowered own_top are stale and skipped). */
static int own_free[OWN_MAX];
static int own_free_n;

/* The shim's changes to the runtime's intervals are published once per MPI call (or hit), not one by one. */
static void mc_lock(void)
{
    pthread_mutex_lock(&mc_mutex);
    rt_batch(1);
}
static void mc_unlock(void)
{
    rt_batch(0);
    pthread_mutex_unlock(&mc_mutex);
}
static int own_top;

static int64_t span_of(MPI_Datatype t, int64_t count, MPI_Aint *lb, int *gaps)
{
    MPI_Aint tlb = 0, text = 0, xlb = 0, ext = 0;
    int size = 0;
    if (count <= 0 || t == MPI_DATATYPE_NULL) return 0;
    if (PMPI_Type_get_true_extent(t, &tlb, &text) != MPI_SUCCESS ||
        PMPI_Type_get_extent(t, &xlb, &ext) != MPI_SUCCESS || PMPI_Type_size(t, &size) != MPI_SUCCESS)
        return 0;
    *lb = tlb;
    *gaps = (int64_t)size * count != (count - 1) * (int64_t)ext + (int64_t)text;
    return (count - 1) * (int64_t)ext + (int64_t)text;
}

static void own_one(msc_call *c, int state, uint64_t key, uintptr_t base, int64_t lb, int64_t span, MPI_Datatype dt,
                    int64_t count, int modes, int check, int64_t win, int target);

/* A type with gaps whose type map is at most this many blocks is published block by block: the runtime then
 * answers exactly, and an access between the blocks (the other columns of a matrix whose column is being
 * received) stays on its fast path instead of asking the shim. */
#define OWN_BLOCKS 4096

/* Publishes count elements of t at buf + byte_off for the given accesses; mutex held. */
static void own_add(msc_call *c, int state, uint64_t key, const void *buf, MPI_Aint byte_off, int64_t count,
                    MPI_Datatype t, int modes, int check, int64_t win, int target)
{
    if (!buf || buf == MPI_IN_PLACE || count <= 0) return;
    MPI_Aint lb = 0;
    int gaps = 0;
    int64_t span = span_of(t, count, &lb, &gaps);
    if (span <= 0) return;
    uintptr_t base = (uintptr_t)buf + (uintptr_t)byte_off;
    if (gaps) {
        static int64_t off[OWN_BLOCKS], len[OWN_BLOCKS];
        int n = msc_layout_blocks(t, count, off, len, OWN_BLOCKS);
        for (int k = 0; k < n; k++)
            own_one(c, state, key, base, off[k], len[k], MPI_DATATYPE_NULL, count, modes, check, win, target);
        if (n > 0) return;
    }
    own_one(c, state, key, base, lb, span, gaps ? t : MPI_DATATYPE_NULL, count, modes, check, win, target);
}

/* One interval [base + lb, base + lb + span); dt: a type with gaps whose hits the shim checks; mutex held. */
static void own_one(msc_call *c, int state, uint64_t key, uintptr_t base, int64_t lb, int64_t span, MPI_Datatype dt,
                    int64_t count, int modes, int check, int64_t win, int target)
{
    int i = -1;
    while (own_free_n > 0 && i < 0) {
        int f = own_free[--own_free_n];
        if (f < own_top && owns[f].state == OWN_FREE) i = f;
    }
    if (i < 0) {
        if (own_top == OWN_MAX) { /* not followed: silence, never a false alarm, and the report says so */
            msc_check_off(MSC_CHECK_MEMCHECK_UNTRACKED);
            return;
        }
        i = own_top++;
    }
    own *o = &owns[i];
    *o = (own){ .state = state, .gen = (uint16_t)(o->gen + 1), .check = check, .key = key, .win = win,
                .target = target, .func = c->func, .site = c->site, .modes = modes, .lo = base + (uintptr_t)lb,
                .hi = base + (uintptr_t)lb + (uintptr_t)span, .base = base, .dt = dt,
                .count = count, .req = pub_req, .where = pub_where,
                .shared = msc_request_shared(pub_req) ? shared_made : 0 };
    o->rt = rt_add(o->lo, o->hi, modes, ((uint64_t)o->gen << 32) | (uint64_t)i);
    if (o->rt < 0) {
        msc_check_off(MSC_CHECK_MEMCHECK_UNTRACKED);
        o->state = OWN_FREE;
        if (own_free_n < OWN_MAX) own_free[own_free_n++] = i;
    }
}

static void own_drop(own *o)
{
    rt_remove(o->rt);
    o->state = OWN_FREE;
    if (own_free_n < OWN_MAX) own_free[own_free_n++] = (int)(o - owns);
    while (own_top > 0 && owns[own_top - 1].state == OWN_FREE) own_top--;
}

/* ---- findings ---- */
/* (access return address, owner site) pairs already reported: one finding per pair per process. */
#define SEEN_SIZE 4096
static _Atomic uint64_t seen[SEEN_SIZE];

static int first_time(uint64_t pc, uint64_t site)
{
    uint64_t k = (pc * 0x9E3779B97F4A7C15ull) ^ (site + 0x632BE59BD9B4E019ull);
    if (!k) k = 1;
    for (unsigned i = 0, h = (unsigned)(k >> 40); i < 64; i++) {
        _Atomic uint64_t *s = &seen[(h + i) & (SEEN_SIZE - 1)];
        uint64_t v = atomic_load_explicit(s, memory_order_relaxed);
        if (v == k) return 0;
        if (v == 0) {
            if (atomic_compare_exchange_strong(s, &v, k)) return 1;
            if (v == k) return 0;
        }
    }
    return 1; /* the table is full around here: report rather than lose a finding */
}

static void emit_finding_param(int check, int64_t param, int func, uint64_t pc, int64_t w2, int64_t w3, int64_t w4)
{
    int64_t w[5] = { check, param, w2, w3, w4 };
    uint32_t seq = atomic_fetch_add_explicit(&msc_seq, 1, memory_order_relaxed) + 1;
    msc_emit(MSC_KIND_FINDING, 0, func, seq, msc_stamp(), pc, w, 5, NULL, 0);
}

static void emit_finding(int check, int func, uint64_t pc, int64_t w2, int64_t w3, int64_t w4)
{
    emit_finding_param(check, -1, func, pc, w2, w3, w4);
}

/* ---- window memory during epochs ---- */
#define WIN_MAX 256 /* window memories: one per window, one per segment of a shared window */
#define WIN_RANGES 32
typedef struct wrange {
    uintptr_t lo, hi;
    uint64_t pc;
    int store; /* 1: stores; | MSC_MC_HIT_ATOMIC: atomic accesses */
} wrange;
typedef struct mwin {
    int64_t key; /* window word; 0 free */
    uintptr_t base, size;
    /* MPI_Win_allocate_shared: every rank's segment (MPI_Win_shared_query) is watched, each as one entry of the
     * same key; seg is the segment's rank in the window's group, -1 for this rank's own memory. A shared window's
     * accesses are sent before every MPI call, whatever the epoch: the analyzer orders them with the other
     * ranks' direct loads and stores by happened-before (MPI_Win_sync + a barrier or a message). */
    int seg, shared;
    int rt;       /* published while an epoch is open, else -1 */
    int64_t epoch; /* fence epochs: the number of fences so far; PSCW: -(posts so far); 0: neither (passive) */
    int fences, posts, fn;
    int nr;
    wrange r[WIN_RANGES];
    /* Bumped whenever the ranges are sent or reset (and at creation and free): a thread's cached range started
     * under another value belongs to what was already sent, and is dropped (thread_ranges below). */
    _Atomic uint32_t gen;
} mwin;
static mwin wins[WIN_MAX];
#define WIN_TOKEN (1ull << 63)

static mwin *win_of(int64_t key)
{
    for (int i = 0; i < WIN_MAX; i++)
        if (wins[i].key == key) return &wins[i];
    return NULL;
}

/* The entries of window key after prev (NULL: from the first): a shared window has one per segment. */
static mwin *win_next(int64_t key, mwin *prev)
{
    for (int i = prev ? (int)(prev - wins) + 1 : 0; i < WIN_MAX; i++)
        if (wins[i].key == key) return &wins[i];
    return NULL;
}
#define EACH_WIN(m, key) for (mwin *m = win_next(key, NULL); m; m = win_next(key, m))

/* A local access of window memory in an epoch: merged into the epoch's ranges (same kind, same site,
 * touching), up to WIN_RANGES; beyond, the latest range of that kind absorbs it (coarser, never lost). */
static void win_hit(mwin *m, uintptr_t a, size_t size, int store, uint64_t pc)
{
    uintptr_t lo = a < m->base ? 0 : a - m->base, hi = lo + size;
    if (hi > m->size) hi = m->size;
    for (int i = 0; i < m->nr; i++) {
        wrange *r = &m->r[i];
        if (r->store == store && r->pc == pc && lo <= r->hi && hi >= r->lo) {
            if (lo < r->lo) r->lo = lo;
            if (hi > r->hi) r->hi = hi;
            return;
        }
    }
    if (m->nr < WIN_RANGES) {
        m->r[m->nr++] = (wrange){ lo, hi, pc, store };
        return;
    }
    /* Full: the latest range of the same kind absorbs it (a load taken for a store could make a race of two
     * reads; with no range of its kind, the access is dropped: silence rather than a false alarm). */
    for (int i = m->nr - 1; i >= 0; i--) {
        wrange *r = &m->r[i];
        if (r->store != store) continue;
        if (lo < r->lo) r->lo = lo;
        if (hi > r->hi) r->hi = hi;
        return;
    }
}

/* Accesses outside fence and exposure epochs not sent yet (on some window): read without the lock at every call. */
_Atomic int msc_mc_passive_dirty;

static void runs_collect(mwin *m, uint32_t gen);

/* The epoch's local accesses go to the analyzer as window-local-access records of the call c: first the gen
 * moves (a thread extending a run after this sees it and adds its access itself, see on_hit), then every
 * thread's runs started under the previous gen join the ranges, then the ranges go out. */
static void win_send(mwin *m, const msc_call *c)
{
    uint32_t gen = atomic_fetch_add_explicit(&m->gen, 1, memory_order_seq_cst);
    runs_collect(m, gen);
    for (int i = 0; i < m->nr; i++) {
        wrange *r = &m->r[i];
        /* [check, -1, window word, offset, length | store << 32 | epoch << 33]; the site is the access. */
        /* w[1]: the segment's rank in the window's group when it is another rank's (shared windows), else -1;
         * w[4]: length (31 bits) | atomic << 31 | store << 32 | epoch << 33. */
        int64_t len = (int64_t)(r->hi - r->lo);
        if (len > 0x7fffffff) len = 0x7fffffff;
        int64_t w[5] = { MSC_CHECK_WINDOW_LOCAL_ACCESS, m->seg, m->key, (int64_t)r->lo,
                         len | ((int64_t)(r->store & MSC_MC_HIT_ATOMIC) << 30) | ((int64_t)(r->store & 1) << 32) |
                             (m->epoch << 33) };
        msc_emit(MSC_KIND_FINDING, 0, c->func, c->seq, msc_stamp(), r->pc, w, 5, NULL, 0);
    }
    m->nr = 0;
}

/* The epoch ends: its local accesses go to the analyzer, window memory is no longer watched (until win_open). */
static void win_close(mwin *m, const msc_call *c)
{
    if (m->rt >= 0) rt_remove(m->rt);
    m->rt = -1;
    win_send(m, c);
}

/* Each thread extends its latest contiguous run of loads (or stores) of one instruction without the mutex, and
 * merges it into the window's ranges when the next access does not extend it; whichever thread sends the ranges
 * (at its MPI call) first takes every thread's runs of that window (runs_collect). A stencil over window memory
 * then takes the mutex once per row and instruction instead of once per access (up to THREAD_RUNS instructions at
 * a time). A thread's runs live in a slot of a fixed table (a thread's own TLS would vanish at its exit while
 * another thread reads it), handed back when the thread exits; a thread beyond RUN_THREADS has none and merges
 * every access under the mutex. */
#define THREAD_RUNS 8
#define RUN_THREADS 256
struct run {
    /* Extended by the owning thread without the mutex; read by a sending thread under it. */
    _Atomic uintptr_t lo, hi;
    /* Set by the owning thread under the mutex. */
    uint64_t pc;
    uint32_t gen;
    int16_t win; /* index in wins, -1: none */
    int8_t store;
};
static struct trun {
    struct run r[THREAD_RUNS];
    unsigned victim;
    int used;
} truns[RUN_THREADS];
static int truns_top; /* slots below are or were used */
static __thread struct trun *my_runs __attribute__((tls_model("initial-exec")));
static __thread int my_runs_none __attribute__((tls_model("initial-exec"))); /* the table was full */
static pthread_key_t runs_key;

/* The run goes into its window's ranges, if they are still the ones it was started in; mutex held. */
static void run_merge(struct run *r)
{
    if (r->win < 0) return;
    mwin *m = &wins[r->win];
    if (m->rt >= 0 && atomic_load_explicit(&m->gen, memory_order_relaxed) == r->gen) {
        uintptr_t lo = atomic_load_explicit(&r->lo, memory_order_relaxed);
        win_hit(m, lo, atomic_load_explicit(&r->hi, memory_order_relaxed) - lo, r->store, r->pc);
    }
    r->win = -1;
}

/* This thread's runs, before its ranges are sent; mutex held. */
static void runs_merge(void)
{
    for (int i = 0; my_runs && i < THREAD_RUNS; i++) run_merge(&my_runs->r[i]);
}

/* Every thread's runs of window m started under gen (the ranges' gen before win_send moved it); mutex held. The
 * owners may be extending them right now: what an owner stored before it saw the new gen is read here (its
 * fence pairs with win_send's read-modify-write), what it stores after, it adds itself. */
static void runs_collect(mwin *m, uint32_t gen)
{
    int16_t wi = (int16_t)(m - wins);
    for (int t = 0; t < truns_top; t++) {
        if (!truns[t].used) continue;
        for (int i = 0; i < THREAD_RUNS; i++) {
            struct run *r = &truns[t].r[i];
            if (r->win != wi || r->gen != gen || m->rt < 0) continue;
            uintptr_t lo = atomic_load_explicit(&r->lo, memory_order_relaxed);
            win_hit(m, lo, atomic_load_explicit(&r->hi, memory_order_relaxed) - lo, r->store, r->pc);
        }
    }
}

/* A thread exits: its runs join their ranges and its slot is free again. */
static void runs_release(void *slot)
{
    struct trun *t = slot;
    pthread_mutex_lock(&mc_mutex);
    runs_merge();
    for (int i = 0; i < THREAD_RUNS; i++) t->r[i].win = -1;
    t->used = 0;
    my_runs = NULL;
    pthread_mutex_unlock(&mc_mutex);
}

/* This thread's slot, taken on its first window access; mutex held. NULL when the table is full. */
static struct trun *runs_mine(void)
{
    if (my_runs || my_runs_none) return my_runs;
    for (int t = 0; t < RUN_THREADS; t++)
        if (!truns[t].used) {
            struct trun *x = &truns[t];
            for (int i = 0; i < THREAD_RUNS; i++) x->r[i].win = -1;
            x->victim = 0;
            x->used = 1;
            if (t >= truns_top) truns_top = t + 1;
            my_runs = x;
            pthread_setspecific(runs_key, x);
            return x;
        }
    my_runs_none = 1;
    return NULL;
}

/* Called by msc_call_begin (before the call's ENTER) when some window's memory was touched outside fence and
 * exposure epochs: those accesses happened between the rank's previous MPI call and this one, which is where the
 * analyzer places them (its position in the rank's history, for happened-before with other ranks' passive-target
 * accesses). */
void msc_mc_passive_flush(const msc_call *c)
{
    if (!mc_on) return;
    mc_lock();
    runs_merge();
    atomic_store_explicit(&msc_mc_passive_dirty, 0, memory_order_relaxed);
    for (int i = 0; i < WIN_MAX; i++)
        if (wins[i].key && (wins[i].epoch == 0 || wins[i].shared) && wins[i].rt >= 0) win_send(&wins[i], c);
    mc_unlock();
}

static void win_open(mwin *m, int64_t epoch)
{
    m->epoch = epoch;
    m->nr = 0;
    atomic_fetch_add_explicit(&m->gen, 1, memory_order_release);
    if (m->rt < 0 && m->size > 0)
        m->rt = rt_add(m->base, m->base + m->size, MSC_MC_READ | MSC_MC_WRITE, WIN_TOKEN | (uint64_t)(m - wins));
}

/* ---- the runtime's callback ---- */
static void on_hit(uintptr_t a, size_t size, int write, void *pc, uint64_t token)
{
    /* Window memory keeps atomics apart (kind: store bit | MSC_MC_HIT_ATOMIC); owned buffers do not care. */
    int kind = write & (1 | MSC_MC_HIT_ATOMIC);
    write &= 1;
    /* MPI's own accesses (a user op called by MPI, the shim) are not the program's. */
    if (msc_tls_depth) return;
    if (atomic_load_explicit(&msc_state, memory_order_relaxed) != MSC_STATE_ON) return;
    if (token & WIN_TOKEN) {
        /* Window memory is hit by every load and store of it (a program computing on its window pays this per
         * access): only the ranges change, never the runtime's intervals, so the mutex alone, without the
         * runtime's batch (two more lock pairs). */
        int wi = (int)(token & (WIN_MAX - 1));
        mwin *m = &wins[wi];
        /* The instruction's run, or the next victim in turn (a stencil's loads are a few instructions apart: no
         * hashing of their addresses, which collide). */
        struct trun *t = my_runs;
        struct run *r = NULL;
        for (int i = 0; t && i < THREAD_RUNS; i++)
            if (t->r[i].pc == (uint64_t)(uintptr_t)pc && t->r[i].win == wi && t->r[i].store == kind) {
                r = &t->r[i];
                break;
            }
        if (r && a <= atomic_load_explicit(&r->hi, memory_order_relaxed) &&
            a + size >= atomic_load_explicit(&r->lo, memory_order_relaxed) &&
            r->gen == atomic_load_explicit(&m->gen, memory_order_acquire)) {
            if (a < atomic_load_explicit(&r->lo, memory_order_relaxed))
                atomic_store_explicit(&r->lo, a, memory_order_relaxed);
            if (a + size > atomic_load_explicit(&r->hi, memory_order_relaxed))
                atomic_store_explicit(&r->hi, a + size, memory_order_relaxed);
            /* Another thread may be sending the ranges: if the gen still holds after the extension is visible,
             * that sender (or a later one) reads it; if not, it may have read the run before, so the access is
             * added here (a range sent twice is harmless; one never sent is a lost access). */
            atomic_thread_fence(memory_order_seq_cst);
            if (r->gen == atomic_load_explicit(&m->gen, memory_order_relaxed)) return;
            pthread_mutex_lock(&mc_mutex);
            if (m->rt >= 0) {
                win_hit(m, a, size, kind, (uint64_t)(uintptr_t)pc);
                if (m->epoch == 0 || m->shared) atomic_store_explicit(&msc_mc_passive_dirty, 1, memory_order_relaxed);
            }
            pthread_mutex_unlock(&mc_mutex);
            return;
        }
        pthread_mutex_lock(&mc_mutex);
        if (!t) t = runs_mine();
        if (t && !r) r = &t->r[t->victim++ & (THREAD_RUNS - 1)];
        if (r) run_merge(r);
        if (m->rt >= 0) {
            if (r) {
                atomic_store_explicit(&r->lo, a, memory_order_relaxed);
                atomic_store_explicit(&r->hi, a + size, memory_order_relaxed);
                r->pc = (uint64_t)(uintptr_t)pc;
                r->gen = atomic_load_explicit(&m->gen, memory_order_relaxed);
                r->win = (int16_t)wi;
                r->store = (int8_t)kind;
            } else {
                win_hit(m, a, size, kind, (uint64_t)(uintptr_t)pc); /* no slot: each access under the mutex */
            }
            if (m->epoch == 0 || m->shared) atomic_store_explicit(&msc_mc_passive_dirty, 1, memory_order_relaxed);
        }
        pthread_mutex_unlock(&mc_mutex);
        return;
    }
    mc_lock();
    own *o = &owns[token & 0xffffffffu];
    if (o->state == OWN_FREE || o->gen != (uint16_t)(token >> 32)) {
        mc_unlock();
        return;
    }
    /* A type with gaps owns only the bytes of its type map. */
    if (o->dt != MPI_DATATYPE_NULL &&
        !msc_layout_touches(o->dt, o->count, (int64_t)(a - o->base), (int64_t)size)) {
        mc_unlock();
        return;
    }
    int check = o->check, func = o->func;
    uint64_t site = o->site;
    int64_t off = a < o->lo ? 0 : (int64_t)(a - o->lo);
    MPI_Request req = o->req;
    const MPI_Request *where = o->where;
    /* One finding per pending operation: its other loads and stores (the next element, another line) are the
     * same defect, and the operation (each of its intervals) is not watched again until it is started again. */
    uint64_t key = o->key;
    own_drop(o);
    for (int i = 0; key && i < own_top; i++)
        if (owns[i].state != OWN_FREE && owns[i].key == key) own_drop(&owns[i]);
    mc_unlock();
    msc_tls_depth = 1; /* nothing done here is the program's */
    /* The store is reported here, at its line: the send's checksum would report it again at the Wait. */
    if (check == MSC_CHECK_PENDING_SEND_STORE && req != MPI_REQUEST_NULL) msc_checksum_forget(req, where);
    if (first_time((uint64_t)(uintptr_t)pc, site))
        emit_finding(check, func, (uint64_t)(uintptr_t)pc, (int64_t)site, off, (int64_t)size | ((int64_t)write << 32));
    msc_tls_depth = 0;
}

void msc_mc_init(void)
{
    int (*version)(void) = (int (*)(void))dlsym(RTLD_DEFAULT, "msc_mcrt_version");
    void (*set_hit)(msc_mcrt_hit_fn) = (void (*)(msc_mcrt_hit_fn))dlsym(RTLD_DEFAULT, "msc_mcrt_set_hit");
    rt_add = (int (*)(uintptr_t, uintptr_t, int, uint64_t))dlsym(RTLD_DEFAULT, "msc_mcrt_add");
    rt_remove = (void (*)(int))dlsym(RTLD_DEFAULT, "msc_mcrt_remove");
    rt_batch = (void (*)(int))dlsym(RTLD_DEFAULT, "msc_mcrt_batch");
    /* A program not built with `mpiscope cc` has no runtime: nothing to publish (mpiscope run says so). */
    if (!version || !set_hit || !rt_add || !rt_remove || !rt_batch || version() != MSC_MCRT_VERSION) return;
    for (int i = 0; i < MSC_FN_COUNT; i++) what[i] = (unsigned char)what_of(msc_func_what[i]);
    for (int i = 0; i < WIN_MAX; i++) wins[i].rt = -1;
    if (pthread_key_create(&runs_key, runs_release) != 0) return;
    set_hit(on_hit);
    mc_on = 1;
}

/* ---- operations start ---- */
static int has(msc_call *c, uint64_t role) { return (msc_role_mask[c->func] & role) != 0; }

static void comm_me(MPI_Comm comm, int *size, int *me)
{
    *size = 1, *me = 0;
    int inter = 0;
    /* An intercommunicator's buffers are sized by the remote group (MPI-3.1 5.2.2). */
    if (PMPI_Comm_test_inter(comm, &inter) == MPI_SUCCESS && inter) PMPI_Comm_remote_size(comm, size);
    else PMPI_Comm_size(comm, size);
    PMPI_Comm_rank(comm, me);
}

/* The span of a v-collective's buffer: the farthest element any displacement and count reach. */
static void add_v(msc_call *c, uint64_t key, const void *buf, const int *counts, const int *displs, int n,
                  MPI_Datatype t, int modes, int check)
{
    if (!counts || !displs || n <= 0) return;
    MPI_Aint lb = 0, ext = 0;
    if (PMPI_Type_get_extent(t, &lb, &ext) != MPI_SUCCESS) return;
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (int i = 0; i < n; i++) {
        if (counts[i] <= 0) continue;
        if (displs[i] < lo) lo = displs[i];
        if ((int64_t)displs[i] + counts[i] > hi) hi = (int64_t)displs[i] + counts[i];
    }
    if (hi <= lo) return;
    own_add(c, OWN_REQ, key, buf, (MPI_Aint)(lo * ext), hi - lo, t, modes, check, 0, -1);
}

static void icollective(msc_call *c, msc_args *a, uint64_t key)
{
    int size, me;
    comm_me(a->comm, &size, &me);
    const int R = MSC_MC_READ | MSC_MC_WRITE, W = MSC_MC_WRITE;
    const int CR = MSC_CHECK_PENDING_RECV_ACCESS, CS = MSC_CHECK_PENDING_SEND_STORE;
    int root = me == a->root;
    int in_place = a->sbuf == MPI_IN_PLACE;
    switch (what[c->func]) {
    case W_BCAST:
        own_add(c, OWN_REQ, key, a->rwbuf, 0, a->count, a->datatype, root ? W : R, root ? CS : CR, 0, -1);
        break;
    case W_GATHER:
        if (!in_place) own_add(c, OWN_REQ, key, a->sbuf, 0, a->scount, a->stype, W, CS, 0, -1);
        if (root) own_add(c, OWN_REQ, key, a->rbuf, 0, (int64_t)a->rcount * size, a->rtype, R, CR, 0, -1);
        break;
    case W_GATHERV:
        if (!in_place) own_add(c, OWN_REQ, key, a->sbuf, 0, a->scount, a->stype, W, CS, 0, -1);
        if (root) add_v(c, key, a->rbuf, a->rcounts, a->rdispls, a->rcounts_n, a->rtype, R, CR);
        break;
    case W_SCATTER:
        if (root) own_add(c, OWN_REQ, key, a->sbuf, 0, (int64_t)a->scount * size, a->stype, W, CS, 0, -1);
        if (a->rbuf != MPI_IN_PLACE) own_add(c, OWN_REQ, key, a->rbuf, 0, a->rcount, a->rtype, R, CR, 0, -1);
        break;
    case W_SCATTERV:
        if (root) add_v(c, key, a->sbuf, a->scounts, a->sdispls, a->scounts_n, a->stype, W, CS);
        if (a->rbuf != MPI_IN_PLACE) own_add(c, OWN_REQ, key, a->rbuf, 0, a->rcount, a->rtype, R, CR, 0, -1);
        break;
    case W_ALLGATHER:
    case W_ALLTOALL:
        if (!in_place)
            own_add(c, OWN_REQ, key, a->sbuf, 0, (int64_t)a->scount * (what[c->func] == W_ALLTOALL ? size : 1),
                    a->stype, W, CS, 0, -1);
        own_add(c, OWN_REQ, key, a->rbuf, 0, (int64_t)a->rcount * size, a->rtype, R, CR, 0, -1);
        break;
    case W_ALLGATHERV:
        if (!in_place) own_add(c, OWN_REQ, key, a->sbuf, 0, a->scount, a->stype, W, CS, 0, -1);
        add_v(c, key, a->rbuf, a->rcounts, a->rdispls, a->rcounts_n, a->rtype, R, CR);
        break;
    case W_ALLTOALLV:
        if (!in_place) add_v(c, key, a->sbuf, a->scounts, a->sdispls, a->scounts_n, a->stype, W, CS);
        add_v(c, key, a->rbuf, a->rcounts, a->rdispls, a->rcounts_n, a->rtype, R, CR);
        break;
    case W_REDUCE:
        if (!in_place) own_add(c, OWN_REQ, key, a->sbuf, 0, a->count, a->datatype, W, CS, 0, -1);
        if (root) own_add(c, OWN_REQ, key, a->rbuf, 0, a->count, a->datatype, R, CR, 0, -1);
        break;
    case W_ALLREDUCE:
        if (!in_place) own_add(c, OWN_REQ, key, a->sbuf, 0, a->count, a->datatype, W, CS, 0, -1);
        own_add(c, OWN_REQ, key, a->rbuf, 0, a->count, a->datatype, R, CR, 0, -1);
        break;
    case W_REDUCE_SCATTER:
    case W_REDUCE_SCATTER_BLOCK: {
        int64_t total = 0, mine = a->rcount;
        if (what[c->func] == W_REDUCE_SCATTER) {
            mine = a->rcounts && me < a->rcounts_n ? a->rcounts[me] : 0;
            for (int i = 0; a->rcounts && i < a->rcounts_n; i++) total += a->rcounts[i];
        } else {
            total = (int64_t)a->rcount * size;
        }
        if (!in_place) own_add(c, OWN_REQ, key, a->sbuf, 0, total, a->datatype, W, CS, 0, -1);
        own_add(c, OWN_REQ, key, a->rbuf, 0, in_place ? total : mine, a->datatype, R, CR, 0, -1);
        break;
    }
    default: /* Ibarrier has no buffer; Ialltoallw's per-peer types are not followed. */
        break;
    }
}

/* A one-sided access whose origin buffer overlaps a pending point-to-point operation's: reported at once,
 * at the access's call, naming the pending operation's call. */
static void rma_vs_pending(msc_call *c, const void *buf, int64_t count, MPI_Datatype t)
{
    MPI_Aint lb = 0;
    int gaps = 0;
    int64_t span = span_of(t, count, &lb, &gaps);
    if (!buf || span <= 0) return;
    uintptr_t lo = (uintptr_t)buf + (uintptr_t)lb, hi = lo + (uintptr_t)span;
    for (int i = 0; i < own_top; i++) {
        own *o = &owns[i];
        if (o->state != OWN_REQ || o->hi <= lo || hi <= o->lo) continue;
        /* Two sends may share a buffer; MPI only forbids it when one side writes. */
        if (o->check == MSC_CHECK_PENDING_SEND_STORE && what[c->func] == W_PUT) continue;
        if (first_time(c->site, o->site))
            emit_finding(MSC_CHECK_RMA_ORIGIN_PENDING, c->func, c->site, (int64_t)o->site,
                         lo > o->lo ? (int64_t)(lo - o->lo) : 0, span);
        return;
    }
}

/* A one-sided access whose origin or result buffer overlaps the buffer of another pending one-sided access of the
 * rank (its epoch not yet closed or flushed, its request not completed), when either side writes the memory: a
 * Get's or a fetching accumulate's result buffer (MPI-4.1 §12.3: the buffer must not be accessed until the
 * operation completes at the origin). Two accesses that only read one buffer (two Puts from it) are legal.
 * Reported at once at the new access's call; param is the pending access's function, values as rma_vs_pending. */
static void rma_vs_rma(msc_call *c, const void *buf, int64_t count, MPI_Datatype t, int writes)
{
    MPI_Aint lb = 0;
    int gaps = 0;
    int64_t span = span_of(t, count, &lb, &gaps);
    if (!buf || buf == MPI_IN_PLACE || span <= 0) return;
    uintptr_t lo = (uintptr_t)buf + (uintptr_t)lb, hi = lo + (uintptr_t)span;
    for (int i = 0; i < own_top; i++) {
        own *o = &owns[i];
        if (o->state != OWN_RMA || o->hi <= lo || hi <= o->lo) continue;
        if (!writes && !(o->modes & MSC_MC_READ)) continue;
        if (first_time(c->site, o->site))
            emit_finding_param(MSC_CHECK_RMA_ORIGIN_OVERLAP, o->func, c->func, c->site, (int64_t)o->site,
                               lo > o->lo ? (int64_t)(lo - o->lo) : 0, span);
        return;
    }
}

static void rma(msc_call *c, msc_args *a, uint64_t key)
{
    int64_t win = msc_w_MPI_Win(a->win);
    int w = what[c->func];
    int64_t scount = has(c, MSC_ROLE_SCOUNT) ? a->scount : has(c, MSC_ROLE_COUNT) ? a->count : 1;
    MPI_Datatype stype = has(c, MSC_ROLE_STYPE) ? a->stype : a->datatype;
    int64_t rcount = has(c, MSC_ROLE_RCOUNT) ? a->rcount : has(c, MSC_ROLE_COUNT) ? a->count : 1;
    MPI_Datatype rtype = has(c, MSC_ROLE_RTYPE) ? a->rtype : a->datatype;
    const int CO = MSC_CHECK_RMA_ORIGIN_ACCESS;
    int no_op = has(c, MSC_ROLE_OP) && a->op == MPI_NO_OP;
    /* Against the other pending one-sided accesses first, before this one's own buffers are owned. */
    if ((w == W_PUT || w == W_GET_ACC) && !no_op) rma_vs_rma(c, a->sbuf, scount, stype, 0);
    if (w == W_GET || w == W_GET_ACC) rma_vs_rma(c, a->rbuf, rcount, rtype, 1);
    if (w == W_PUT || w == W_GET_ACC) {
        rma_vs_pending(c, a->sbuf, scount, stype);
        /* MPI_NO_OP ignores the origin buffer. */
        if (!no_op)
            own_add(c, OWN_RMA, key, a->sbuf, 0, scount, stype, MSC_MC_WRITE, CO, win, a->trank);
    }
    if (w == W_GET || w == W_GET_ACC) {
        rma_vs_pending(c, a->rbuf, rcount, rtype);
        own_add(c, OWN_RMA, key, a->rbuf, 0, rcount, rtype, MSC_MC_READ | MSC_MC_WRITE, CO, win, a->trank);
    }
}

/* Remembered persistent requests: [buffer, count, datatype, func, site, send] until freed. */
#define PERSIST_MAX 1024
typedef struct persist {
    uint64_t key;
    const void *buf;
    int count;
    MPI_Datatype dt;
    int func;
    uint64_t site;
    int send;
} persist;
static persist persists[PERSIST_MAX];

/* The key of a request: its word, or for a request MPI handed out already complete and shared between calls
 * (MPICH's builtin requests) the address of the caller's variable, which its Wait/Test passes back. The
 * operation is then complete for MPI, but not for the program, which may touch its buffer only after the Wait:
 * the same program must give the same finding on every MPI. */
static uint64_t req_key(MPI_Request req, const MPI_Request *where)
{
    if (msc_request_shared(req)) return where ? (1ull << 63) | (uint64_t)(uintptr_t)where : 0;
    return (uint64_t)msc_w_MPI_Request(req);
}

void msc_mc_post(msc_call *c, msc_args *a, int rc)
{
    if (!mc_on || rc != MPI_SUCCESS) return;
    const char *cls = NULL;
    MPI_Request req = a->request_out ? *a->request_out : MPI_REQUEST_NULL;
    if (a->request_out && req == MPI_REQUEST_NULL) return;
    uint64_t key = a->request_out ? req_key(req, a->request_out) : 0;
    if (a->request_out && !key) return;
    int w = what[c->func];
    mc_lock();
    pub_req = req, pub_where = a->request_out;
    if (msc_request_shared(req)) shared_made++;
    if (w >= W_PUT) {
        rma(c, a, key);
    } else if (w != W_NONE) {
        icollective(c, a, key);
    } else if (!strcmp(cls = msc_func_what[c->func], "isend")) {
        own_add(c, OWN_REQ, key, a->sbuf, 0, a->count, a->datatype, MSC_MC_WRITE, MSC_CHECK_PENDING_SEND_STORE, 0, -1);
    } else if (!strcmp(cls, "irecv") || !strcmp(cls, "imrecv")) {
        own_add(c, OWN_REQ, key, a->rbuf, 0, a->count, a->datatype, MSC_MC_READ | MSC_MC_WRITE,
                MSC_CHECK_PENDING_RECV_ACCESS, 0, -1);
    } else if (!strcmp(cls, "send_init") || !strcmp(cls, "recv_init")) {
        for (int i = 0; i < PERSIST_MAX; i++)
            if (!persists[i].key || persists[i].key == key) {
                int send = cls[0] == 's';
                persists[i] = (persist){ key, send ? a->sbuf : a->rbuf, a->count, a->datatype, c->func, c->site, send };
                break;
            }
    }
    pub_req = MPI_REQUEST_NULL, pub_where = NULL;
    mc_unlock();
}

/* MPI_Start/MPI_Startall: each persistent request owns its buffer again until it completes. */
void msc_mc_started(msc_call *c, const MPI_Request *reqs, int n)
{
    if (!mc_on || !reqs) return;
    mc_lock();
    for (int k = 0; k < n; k++) {
        uint64_t key = req_key(reqs[k], NULL);
        for (int i = 0; key && i < PERSIST_MAX; i++) {
            persist *p = &persists[i];
            if (p->key != key) continue;
            /* The finding names the operation's creating call (Send_init) with the Start's call site. */
            msc_call at = *c;
            at.func = p->func;
            pub_req = reqs[k], pub_where = NULL;
            own_add(&at, OWN_REQ, key, p->buf, 0, p->count, p->dt,
                    p->send ? MSC_MC_WRITE : MSC_MC_READ | MSC_MC_WRITE,
                    p->send ? MSC_CHECK_PENDING_SEND_STORE : MSC_CHECK_PENDING_RECV_ACCESS, 0, -1);
            pub_req = MPI_REQUEST_NULL;
            break;
        }
    }
    mc_unlock();
}

/* ---- operations complete ---- */
void msc_mc_completed(MPI_Request req, const MPI_Request *where, int freed)
{
    if (!mc_on || req == MPI_REQUEST_NULL) return;
    uint64_t key = req_key(req, where);
    if (!key) return;
    mc_lock();
    int found = 0;
    for (int i = 0; i < own_top; i++)
        if (owns[i].state != OWN_FREE && owns[i].key == key) own_drop(&owns[i]), found = 1;
    /* A shared request's variable is not always the one the program created it with (a Fortran binding's C view
     * converts handles into locals of each call): then the oldest shared operation is the one completed, the
     * order in which the engine consumes them too. */
    if (!found && msc_request_shared(req)) {
        uint64_t oldest = 0;
        for (int i = 0; i < own_top; i++)
            if (owns[i].state != OWN_FREE && owns[i].shared && (!oldest || owns[i].shared < oldest))
                oldest = owns[i].shared;
        for (int i = 0; oldest && i < own_top; i++)
            if (owns[i].state != OWN_FREE && owns[i].shared == oldest) own_drop(&owns[i]);
    }
    if (freed)
        for (int i = 0; i < PERSIST_MAX; i++)
            if (persists[i].key == key) persists[i].key = 0;
    mc_unlock();
}

/* ---- windows ---- */
/* One watched window memory (a window's, or a segment of a shared window); mutex held. */
static void win_watch(int64_t key, void *base, MPI_Aint size, int seg, int shared)
{
    mwin *m = win_of(0);
    if (!m || !base || size <= 0) return; /* beyond WIN_MAX: not followed (silence) */
    uint32_t gen = atomic_load_explicit(&m->gen, memory_order_relaxed); /* runs of a freed window stay stale */
    *m = (mwin){ .key = key, .base = (uintptr_t)base, .size = (uintptr_t)size, .rt = -1, .seg = seg,
                 .shared = shared };
    atomic_store_explicit(&m->gen, gen + 1, memory_order_release);
    /* Watched from here: other ranks may lock the window and access it at any time (epoch 0). */
    win_open(m, 0);
}

/* given: the base MPI_Win_allocate(_shared) handed the program, else NULL. */
void msc_mc_win_created(MPI_Win win, void *given)
{
    if (!mc_on || win == MPI_WIN_NULL) return;
    /* The window's memory as MPI knows it, whichever call made it (a dynamic window has none). */
    void *base = NULL;
    MPI_Aint *sizep = NULL, size = 0;
    int flag = 0, *flavor = NULL;
    if (PMPI_Win_get_attr(win, MPI_WIN_BASE, &base, &flag) != MPI_SUCCESS || !flag) base = NULL;
    /* The program's loads and stores are placed from the pointer it was handed, which MPI says is the window's
     * base: MPICH 4.0.2 (ch4) hands ranks other than a node's first a pointer 8 bytes past MPI_WIN_BASE, where
     * the program's element 0 is not the one other ranks' accesses at displacement 0 reach. The program's view
     * is the one that holds on every MPI. */
    if (given) base = given;
    if (PMPI_Win_get_attr(win, MPI_WIN_SIZE, &sizep, &flag) == MPI_SUCCESS && flag && sizep) size = *sizep;
    int shared = PMPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &flavor, &flag) == MPI_SUCCESS && flag && flavor &&
                 *flavor == MPI_WIN_FLAVOR_SHARED;
    int64_t key = msc_w_MPI_Win(win);
    mc_lock();
    win_watch(key, base, size, -1, shared);
    if (shared) {
        /* Every other rank's segment too: this rank may load and store it directly (MPI_Win_shared_query). */
        MPI_Group g = MPI_GROUP_NULL;
        int n = 0, me = -1;
        if (PMPI_Win_get_group(win, &g) == MPI_SUCCESS) {
            PMPI_Group_size(g, &n);
            PMPI_Group_rank(g, &me);
            PMPI_Group_free(&g);
        }
        for (int r = 0; r < n; r++) {
            MPI_Aint sz = 0;
            int du = 0;
            void *bp = NULL;
            if (r == me || PMPI_Win_shared_query(win, r, &sz, &du, &bp) != MPI_SUCCESS) continue;
            win_watch(key, bp, sz, r, 1);
        }
    }
    mc_unlock();
}

/* Before a window synchronization reaches MPI: the epoch it closes ends here (local accesses are sent). */
void msc_mc_win_pre(msc_call *c, msc_args *a)
{
    if (!mc_on) return;
    const char *w = msc_func_what[c->func];
    int64_t key = msc_w_MPI_Win(a->win);
    mc_lock();
    runs_merge();
    EACH_WIN(m, key)
    if (m->rt >= 0 && (!strcmp(w, "fence") || !strcmp(w, "wait") || !strcmp(w, "post") ||
                       c->func == MSC_FN_MPI_Win_free))
        win_close(m, c);
    mc_unlock();
}

/* After it returned: origin buffers it completes are free again, and an epoch it opens is watched. */
void msc_mc_win_post(msc_call *c, msc_args *a, int rc)
{
    if (!mc_on || rc != MPI_SUCCESS) return;
    const char *w = msc_func_what[c->func];
    int64_t key = msc_w_MPI_Win(a->win);
    int all = !strcmp(w, "fence") || !strcmp(w, "unlock_all") || !strcmp(w, "flush_all") ||
              !strcmp(w, "flush_local_all") || !strcmp(w, "complete");
    int one = !strcmp(w, "unlock") || !strcmp(w, "flush") || !strcmp(w, "flush_local");
    mc_lock();
    if (all || one)
        for (int i = 0; i < own_top; i++) {
            own *o = &owns[i];
            if (o->state == OWN_RMA && o->win == key && (all || o->target == a->trank)) own_drop(o);
        }
    EACH_WIN(m, key)
    {
        if (!strcmp(w, "fence")) {
            m->fences++;
            /* MPI_MODE_NOSUCCEED: this fence opens no epoch (the memory is then open to passive-target access). */
            win_open(m, !(c->w[0] & MPI_MODE_NOSUCCEED) ? m->fences : 0); /* w[0]: the assert */
        } else if (!strcmp(w, "post")) {
            m->posts++;
            win_open(m, -(int64_t)m->posts);
        } else if (!strcmp(w, "wait")) {
            win_open(m, 0);
        } else if (m->rt >= 0 && m->epoch < 0 && !strcmp(w, "test") && (c->xflags & MSC_FLAG_TRUE)) {
            /* MPI_Win_test returned true: the exposure epoch ended in it, as in MPI_Win_wait (closed there before
             * MPI is called; here after, since only the flag says the epoch ended). */
            runs_merge();
            win_close(m, c);
            win_open(m, 0);
        }
    }
    mc_unlock();
}

void msc_mc_win_freed(MPI_Win win)
{
    if (!mc_on) return;
    int64_t key = msc_w_MPI_Win(win);
    mc_lock();
    for (int i = 0; i < own_top; i++)
        if (owns[i].state == OWN_RMA && owns[i].win == key) own_drop(&owns[i]);
    EACH_WIN(m, key)
    {
        if (m->rt >= 0) rt_remove(m->rt);
        m->key = 0, m->rt = -1;
        atomic_fetch_add_explicit(&m->gen, 1, memory_order_release);
    }
    mc_unlock();
}

#endif /* MSC_MEMCHECK */
