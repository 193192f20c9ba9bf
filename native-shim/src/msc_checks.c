/* Invalid-argument checks made before a call reaches MPI, and send-buffer checksums.
 *
 * A failed check becomes a FINDING record that is flushed to the analyzer before PMPI is called, because
 * MPI's default error handler aborts the job on that very call. The checks only report: the call is always
 * forwarded unchanged, so the program behaves as it would without the shim.
 *
 * State about handles (datatypes created/committed/freed, communicators freed, checksums of pending sends)
 * lives in small lock-free tables with bounded probing: no lock, no allocation; a table that is full simply
 * stops tracking, which can only make a check silent, never wrong. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "msc_shim.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>
#include <unwind.h>

int msc_checks_on = 1;
int msc_tag_ub = 32767;

/* ---- state about handles ---- */
typedef msc_slot slot;
static msc_table dtypes = MSC_TABLE(TABLE_FULL_DATATYPES), comms = MSC_TABLE(TABLE_FULL_COMMS);
static _Atomic int n_dtypes, n_comms;
static _Atomic uint32_t comm_gen; /* bumped whenever a communicator is created or freed */
/* Bumped whenever a tracked datatype's state changes (after the change is stored, so that a thread that read the
 * old generation and then found the old state cannot keep it past the change). */
static _Atomic uint32_t dtype_gen;
/* The thread's last communicator and datatype that passed comm_ok/dtype_ok's table lookup, with the generation
 * they were looked up at (+ 1: 0 is empty): once a program has freed a communicator or made a datatype, every
 * point-to-point call looked its communicator and its datatype up in the tables (29 instructions each, a tenth of
 * the shim's instructions per call in LAMMPS, callgrind), while they change only at a free or a commit. */
static __thread struct {
    uint32_t gen;
    MPI_Comm comm;
} live_comm __attribute__((tls_model("initial-exec")));
static __thread struct {
    uint32_t gen;
    int ok; /* dtype_ok's answer: 1, or 2 for a type whose entries overlap */
    MPI_Datatype t;
} live_dtype __attribute__((tls_model("initial-exec")));
#define tbl_find msc_tbl_find
#define tbl_put msc_tbl_put

void msc_dtype_track(MPI_Datatype t, int state)
{
    uint64_t k = (uint64_t)msc_w_MPI_Datatype(t);
    if (!k) return;
    slot *s = tbl_put(&dtypes, k);
    if (!s) return;
    atomic_store(&s->v[0], state);
    atomic_store(&s->v[1], 0); /* not overlapping (msc_dtype_overlapping), until its commit says so */
    atomic_store(&s->v[2], 0); /* references MPI_Type_get_contents handed out (msc_dtype_reference) */
    atomic_store(&n_dtypes, 1);
    atomic_fetch_add_explicit(&dtype_gen, 1, memory_order_release);
    if (state == MSC_DT_FREED) msc_layout_forget(t);
}

/* v[2]: references handed out by MPI_Type_get_contents and not yet freed; v[3]: the state before the type's
 * own free, for a reference handed out after it (MPICH and Open MPI keep a type that another one was made of
 * alive, and hand out its old handle). */
void msc_dtype_reference(MPI_Datatype t)
{
    slot *s = tbl_find(&dtypes, (uint64_t)msc_w_MPI_Datatype(t));
    if (!s) return;
    if (atomic_load(&s->v[0]) == MSC_DT_FREED) atomic_store(&s->v[0], atomic_load(&s->v[3]));
    atomic_fetch_add(&s->v[2], 1);
    atomic_fetch_add_explicit(&dtype_gen, 1, memory_order_release);
}

void msc_dtype_free(MPI_Datatype t)
{
    slot *s = tbl_find(&dtypes, (uint64_t)msc_w_MPI_Datatype(t));
    if (s && atomic_load(&s->v[2]) > 0) {
        atomic_fetch_sub(&s->v[2], 1);
        return;
    }
    int64_t before = s ? atomic_load(&s->v[0]) : MSC_DT_COMMITTED;
    msc_dtype_track(t, MSC_DT_FREED);
    if ((s = tbl_find(&dtypes, (uint64_t)msc_w_MPI_Datatype(t)))) atomic_store(&s->v[3], before);
}

void msc_dtype_overlapping(MPI_Datatype t)
{
    slot *s = tbl_find(&dtypes, (uint64_t)msc_w_MPI_Datatype(t));
    if (s) atomic_store(&s->v[1], 1);
    atomic_fetch_add_explicit(&dtype_gen, 1, memory_order_release);
}

void msc_comm_track(MPI_Comm comm, int freed)
{
    uint64_t k = (uint64_t)msc_w_MPI_Comm(comm);
    if (!k) return;
    if (freed) {
        slot *s = tbl_put(&comms, k);
        if (s) atomic_store(&s->v[0], 1);
        atomic_store(&n_comms, 1);
    } else {
        /* A new communicator may reuse a freed one's handle. */
        slot *s = atomic_load(&n_comms) ? tbl_find(&comms, k) : NULL;
        if (s) atomic_store(&s->v[0], 0);
    }
    /* After the state: see dtype_gen. */
    atomic_fetch_add_explicit(&comm_gen, 1, memory_order_release);
}

/* ---- findings ---- */
static __thread int found __attribute__((tls_model("initial-exec")));

/* The index of the function's parameter that has the role, or -1. */
static int param_index(int func, uint64_t role_bit)
{
    const char *name = msc_role_names[__builtin_ctzll(role_bit)];
    const char *p = msc_param_roles[func];
    size_t len = strlen(name);
    for (int idx = 0; *p; idx++) {
        const char *e = strchr(p, ' ');
        size_t l = e ? (size_t)(e - p) : strlen(p);
        if (l == len && !memcmp(p, name, len)) return idx;
        if (!e) break;
        p = e + 1;
    }
    return -1;
}

void msc_finding(msc_call *c, int check, int param, int64_t value, int64_t extra1, int64_t extra2)
{
    int64_t w[5] = { check, param, value, extra1, extra2 };
    msc_emit(MSC_KIND_FINDING, 0, c->func, c->seq, msc_stamp(), c->site, w, 5, NULL, 0);
    found = 1;
}

static void finding_role(msc_call *c, int check, uint64_t role, int64_t value, int64_t extra)
{
    msc_finding(c, check, param_index(c->func, role), value, extra, 0);
}

void msc_findings_clear(void) { found = 0; }

/* Sends the findings of this call before MPI gets the chance to abort on it. */
static void flush_findings(void)
{
    if (!found) return;
    found = 0;
    /* A call whose ENTER is held back (msc_enter_local) has nothing in the ring yet when no FINDING was emitted
     * (an access with no epoch announces itself by its ENTER alone), and MPI may abort on it: write it now. */
    if (msc_held_call != NULL) msc_emit_held();
    msc_sender_flush(2000);
}

void msc_rules_done(void) { flush_findings(); }

int msc_dtype_state(MPI_Datatype t)
{
    if (!atomic_load_explicit(&n_dtypes, memory_order_relaxed)) return 0;
    slot *s = tbl_find(&dtypes, (uint64_t)msc_w_MPI_Datatype(t));
    return s ? (int)atomic_load(&s->v[0]) : 0;
}

int msc_comm_freed(MPI_Comm comm)
{
    if (!atomic_load_explicit(&n_comms, memory_order_relaxed)) return 0;
    slot *s = tbl_find(&comms, (uint64_t)msc_w_MPI_Comm(comm));
    return s && atomic_load(&s->v[0]) == 1;
}

/* Whether a buffer is attached (a zero-size one too): set when MPI_Buffer_attach and MPI_Buffer_detach succeed. */
static _Atomic int buffer_attached;
void msc_buffer_attach_state(int attached) { atomic_store_explicit(&buffer_attached, attached, memory_order_relaxed); }
int msc_buffer_is_attached(void) { return atomic_load_explicit(&buffer_attached, memory_order_relaxed); }

/* ---- individual checks ----
 * Inlined into the per-class checkers: each is a compare or two when nothing is wrong, less than the call itself
 * cost (bench/shim-overhead, callgrind); what reports a finding stays out of line. */
#define MSC_CHECK_INLINE inline __attribute__((always_inline))
static MSC_CHECK_INLINE int comm_ok(msc_call *c, MPI_Comm comm)
{
    if (MSC_IS_NULL(MPI_Comm, comm)) {
        finding_role(c, MSC_CHECK_NULL_COMM, MSC_ROLE_COMM, 0, 0);
        return 0;
    }
    if (atomic_load_explicit(&n_comms, memory_order_relaxed)) {
        uint32_t gen = atomic_load_explicit(&comm_gen, memory_order_acquire) + 1;
        if (!(live_comm.gen == gen && live_comm.comm == comm)) {
            slot *s = tbl_find(&comms, (uint64_t)msc_w_MPI_Comm(comm));
            if (s && atomic_load(&s->v[0]) == 1) {
                finding_role(c, MSC_CHECK_FREED_COMM, MSC_ROLE_COMM, msc_w_MPI_Comm(comm), 0);
                return 0;
            }
            live_comm.gen = gen;
            live_comm.comm = comm;
        }
    }
    return msc_mpi_ready;
}

static MSC_CHECK_INLINE int dtype_ok(msc_call *c, MPI_Datatype t, uint64_t role)
{
    if (MSC_IS_NULL(MPI_Datatype, t)) {
        finding_role(c, MSC_CHECK_NULL_DATATYPE, role, 0, 0);
        return 0;
    }
    if (atomic_load_explicit(&n_dtypes, memory_order_relaxed)) {
        uint32_t gen = atomic_load_explicit(&dtype_gen, memory_order_acquire) + 1;
        if (live_dtype.gen == gen && live_dtype.t == t) return live_dtype.ok;
        slot *s = tbl_find(&dtypes, (uint64_t)msc_w_MPI_Datatype(t));
        int64_t st = s ? atomic_load(&s->v[0]) : 0;
        if (st == MSC_DT_FREED) {
            finding_role(c, MSC_CHECK_FREED_DATATYPE, role, msc_w_MPI_Datatype(t), 0);
            return 0;
        }
        if (st == MSC_DT_CREATED) {
            finding_role(c, MSC_CHECK_UNCOMMITTED_DATATYPE, role, msc_w_MPI_Datatype(t), 0);
            return 0;
        }
        /* 2: usable, but its entries overlap, which a receive may not have (msc_type_overlaps). */
        int ok = s && atomic_load_explicit(&s->v[1], memory_order_relaxed) ? 2 : 1;
        live_dtype.gen = gen;
        live_dtype.ok = ok;
        live_dtype.t = t;
        return ok;
    }
    return 1;
}

static MSC_CHECK_INLINE void count_ok(msc_call *c, int count, uint64_t role)
{
    if (count < 0) finding_role(c, MSC_CHECK_NEGATIVE_COUNT, role, count, 0);
}

/* The calling thread's stack [lo, lo + size), asked of pthread_getattr_np once per thread. size 0: not asked yet;
 * a thread whose stack is unknown gets lo = UINTPTR_MAX, size 1, which no buffer falls in. */
static __thread struct {
    uintptr_t lo, size;
} stk __attribute__((tls_model("initial-exec")));

/* The stack buffers this thread described last (site, depth, buffer, count, type): a loop sending and receiving the
 * same local arrays from the same lines describes them once. Sets of DESCRIBED_WAYS slots chosen by call site and
 * buffer, newest first (a hit stays where it is): with one slot per set, two sites of one loop that fell in the same
 * set evicted each other and walked the stack and sent a record on every call (bench/end-to-end's loop: 40,000
 * records more). */
#define DESCRIBED_SETS 16
#define DESCRIBED_WAYS 4
typedef struct {
    uintptr_t site, sp;
    const void *buf;
    int count;
    MPI_Datatype t;
} described_buffer;
static __thread described_buffer described_last[DESCRIBED_SETS][DESCRIBED_WAYS]
    __attribute__((tls_model("initial-exec")));

struct caller_frame {
    uintptr_t site, cfa;
    int hit, frames;
};

/* libgcc's context of the frame whose IP is the call site gives the caller's stack pointer as its CFA; the next
 * frame's context gives the caller's own CFA, the base of DWARF's DW_OP_fbreg locations (GCC's frame base is
 * DW_OP_call_frame_cfa). */
static _Unwind_Reason_Code caller_frame_step(struct _Unwind_Context *ctx, void *arg)
{
    struct caller_frame *f = arg;
    if (f->hit) {
        f->cfa = _Unwind_GetCFA(ctx);
        return _URC_END_OF_STACK;
    }
    if (_Unwind_GetIP(ctx) == f->site) f->hit = 1;
    return ++f->frames > 16 ? _URC_END_OF_STACK : _URC_NO_REASON;
}

static __attribute__((noinline, cold)) void stack_init(void)
{
    pthread_attr_t attr;
    void *addr = NULL;
    size_t size = 0;
    stk.lo = UINTPTR_MAX;
    stk.size = 1;
    if (pthread_getattr_np(pthread_self(), &attr) != 0) return;
    if (pthread_attr_getstack(&attr, &addr, &size) == 0 && addr != NULL && size > 0) {
        stk.lo = (uintptr_t)addr;
        stk.size = size;
    }
    pthread_attr_destroy(&attr);
}

/* A buffer in the calling thread's stack: the analyzer can tell the local variable it lies in from the debug info
 * of the caller, given the buffer's offset from the caller's CFA, and judge whether the call reaches past it
 * (invalid-argument). Sends a stack-buffer-frame candidate with that offset and the bytes the call reaches; no
 * flush (a rank that dies in the call flushes its ring). The walk of two or three frames runs only here, for a
 * stack buffer not described just before. */
static __attribute__((noinline, cold)) void stack_buffer(msc_call *c, const void *buf, int count, MPI_Datatype t,
                                                         uint64_t role, int param)
{
    if (stk.size == 0) stack_init();
    if ((uintptr_t)buf - stk.lo >= stk.size) return;
    if (count <= 0) return;
    uintptr_t sp = (uintptr_t)__builtin_frame_address(0);
    described_buffer *set =
        described_last[((c->site ^ (uintptr_t)buf) * 0x9e3779b97f4a7c15ull) >> 60 & (DESCRIBED_SETS - 1)];
    described_buffer now = { c->site, sp, buf, count, t };
    int way = 0;
    while (way < DESCRIBED_WAYS && !(set[way].site == c->site && set[way].sp == sp && set[way].buf == buf &&
                                     set[way].count == count && set[way].t == t))
        way++;
    /* Described already: nothing to do and nothing to move (two buffers of one call often share a set, and
     * moving each to the front in turn copied entries on every call). New: in front, the oldest out. */
    if (way < DESCRIBED_WAYS) return;
    for (int k = DESCRIBED_WAYS - 1; k > 0; k--) set[k] = set[k - 1];
    set[0] = now;
    MPI_Aint lb = 0, ext = 0, tlb = 0, text = 0;
    if (PMPI_Type_get_extent(t, &lb, &ext) != MPI_SUCCESS || PMPI_Type_get_true_extent(t, &tlb, &text) != MPI_SUCCESS ||
        ext < 0 || text < 0)
        return;
    struct caller_frame f = { c->site, 0, 0, 0 };
    _Unwind_Backtrace(caller_frame_step, &f);
    if (f.cfa == 0) return;
    int64_t reach = (int64_t)tlb + (int64_t)(count - 1) * (int64_t)ext + (int64_t)text;
    int64_t w[5] = { MSC_CHECK_STACK_BUFFER_FRAME, role ? param_index(c->func, role) : param,
                     (int64_t)((uintptr_t)buf - f.cfa), reach,
                     (int64_t)tlb };
    msc_emit(MSC_KIND_FINDING, 0, c->func, c->seq, msc_stamp(), c->site, w, 5, NULL, 0);
}

/* ---- heap buffers ----
 * A buffer in the main heap of glibc's malloc (the brk area) lies in a chunk whose size glibc keeps in the word
 * before it; a call that reaches past the end of that chunk reads or writes memory the program never allocated
 * (invalid-argument, heap-buffer-too-small). Chunks of 64-bit glibc: the size word (flags in its 3 low bits) at
 * chunk + 8, the user's memory from chunk + 16 to chunk + size + 8 (an allocated chunk also owns the next
 * chunk's first word). Only judged when glibc's malloc is the program's (another allocator's memory has no such
 * words) and for predefined types (a derived type may address other objects relative to the buffer, legally).
 * A pointer that does not begin a chunk (a slice of an array) is located by walking the chunks, once per chunk and
 * thread (a small cache). A walk starts at the nearest waypoint below the pointer: the start of every
 * HEAP_STRIDE-th chunk that earlier walks passed, kept in address order and mended by each walk (a waypoint the walk
 * steps over is no longer a chunk start and goes; a chunk it passes where none is near becomes one), so a slice
 * costs a binary search and a few tens of steps instead of a walk from the heap's start (cp2k passes thousands of
 * slices of a heap of ~10^5 chunks: 81% of its run went to those walks, 2 s bare → 22 s). A waypoint may be stale
 * (its chunk merged into a free neighbour, whose old header malloc leaves in place), so a room too small found from
 * one is believed only after a walk from the heap's start (which also rebuilds the waypoints): a stale walk can
 * only make the check silent. The walk stops, silent, at anything that is not a well-formed chunk, so what another
 * allocator or a concurrent free does to the heap can only make it silent; one thread walks at a time (another
 * skips the check). And a bound: once walks have taken more than HEAP_STEP_FREE steps plus HEAP_STEP_PER_WALK per
 * walk, slices are no longer judged (a buffer that begins a chunk still is).
 * Memory of glibc's other arenas (threads' heaps) and of its mmapped chunks is not judged. */
uintptr_t msc_heap_lo, msc_heap_span;
static inline int in_heap(const void *p) { return (uintptr_t)p - msc_heap_lo < msc_heap_span; }
#define HEAP_CACHE 8
#define HEAP_WALK_MAX (1u << 20)
#define HEAP_STRIDE 32
#define HEAP_STEP_FREE (1ull << 21)
#define HEAP_STEP_PER_WALK 512
#define HEAP_WAYPOINTS_MAX (1u << 18)
static _Atomic int heap_walk_off; /* a walk failed or cost too much: slices of the heap are not judged */
static pthread_mutex_t heap_lock = PTHREAD_MUTEX_INITIALIZER; /* the waypoints and the step count */
static uintptr_t *heap_wp;                                    /* waypoints (chunk starts), ascending, mmapped */
static unsigned heap_wp_n, heap_wp_cap;
static uint64_t heap_steps, heap_walks;
static uint64_t heap_step_free = HEAP_STEP_FREE; /* MPISCOPE_HEAP_WALK_STEPS: the tests make it small */
static __thread struct {
    uintptr_t chunk, word, end;
} heap_cache[HEAP_CACHE] __attribute__((tls_model("initial-exec")));
static __thread unsigned heap_cache_next __attribute__((tls_model("initial-exec")));
static __thread struct {
    uintptr_t site;
    const void *buf;
    int64_t reach;
} heap_told[HEAP_CACHE] __attribute__((tls_model("initial-exec")));
static __thread unsigned heap_told_next __attribute__((tls_model("initial-exec")));
static __thread described_buffer heap_judged[16] __attribute__((tls_model("initial-exec")));

void msc_heap_init(void)
{
    /* glibc's malloc must be the one in use: an interposed allocator (tcmalloc, jemalloc, a memory checker) lays
     * out the heap differently, or not in the brk area at all. */
    void *m = dlsym(RTLD_DEFAULT, "malloc"), *lm = dlsym(RTLD_DEFAULT, "__libc_malloc");
    if (!m || m != lm) return;
    FILE *f = fopen("/proc/self/maps", "r");
    if (!f) return;
    char line[512];
    uintptr_t lo = 0, hi = 0;
    while (fgets(line, sizeof line, f))
        if (strstr(line, "[heap]")) {
            unsigned long a = 0, b = 0;
            if (sscanf(line, "%lx-%lx", &a, &b) == 2) lo = a, hi = b;
            break;
        }
    fclose(f);
    if (!lo || hi <= lo) return;
    msc_heap_lo = lo;
    const char *steps = getenv("MPISCOPE_HEAP_WALK_STEPS");
    if (steps && *steps) heap_step_free = strtoull(steps, NULL, 10);
    /* The area grows with brk: the hot path's test takes a span far beyond it (the mmap area and the stacks are
     * tens of terabytes away), the exact end is sbrk(0) in the slow path. */
    msc_heap_span = (uintptr_t)1 << 40;
}

/* A chunk's size word is well formed: at least the minimum chunk, a multiple of 16, not mmapped nor of another
 * arena, and the chunk inside [lo, top). */
static inline int heap_chunk_ok(uintptr_t c, uintptr_t w, uintptr_t top)
{
    uintptr_t size = w & ~(uintptr_t)7;
    return (w & 6) == 0 && size >= 32 && (size & 15) == 0 && c + size <= top && c + size > c;
}

/* Room for one more waypoint at index i (shifting those above it); 0 when the array cannot grow. */
static int heap_wp_insert(unsigned i, uintptr_t c)
{
    if (heap_wp_n == heap_wp_cap) {
        if (heap_wp_cap >= HEAP_WAYPOINTS_MAX) return 0;
        unsigned cap = heap_wp_cap ? heap_wp_cap * 2 : 4096;
        size_t was = heap_wp_cap * sizeof *heap_wp, now = cap * sizeof *heap_wp;
        void *m = heap_wp ? mremap(heap_wp, was, now, MREMAP_MAYMOVE)
                          : mmap(NULL, now, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m == MAP_FAILED) return 0;
        heap_wp = m;
        heap_wp_cap = cap;
    }
    memmove(heap_wp + i + 1, heap_wp + i, (heap_wp_n - i) * sizeof *heap_wp);
    heap_wp[i] = c;
    heap_wp_n++;
    return 1;
}

static void heap_wp_remove(unsigned i)
{
    memmove(heap_wp + i, heap_wp + i + 1, (heap_wp_n - i - 1) * sizeof *heap_wp);
    heap_wp_n--;
}

/* A waypoint still looks like the start of a chunk: a well-formed size word whose next chunk is well formed too
 * and agrees — it says this chunk is in use (its PREV_INUSE bit), or it holds this chunk's size in its prev_size
 * word, as malloc keeps it after a free chunk. A header left inside a merged chunk mostly fails this; one that passes
 * can only make the walk silent (see heap_room). */
static int heap_wp_plausible(uintptr_t c, uintptr_t top)
{
    uintptr_t w = *(const uintptr_t *)(c + 8);
    if (!heap_chunk_ok(c, w, top)) return 0;
    uintptr_t size = w & ~(uintptr_t)7, next = c + size;
    if (next + 16 > top) return next == top; /* the top chunk, or nothing malloc would make */
    uintptr_t nw = *(const uintptr_t *)(next + 8);
    if ((nw & 6) != 0 || (nw & ~(uintptr_t)7) < 16) return 0;
    return (nw & 1) || *(const uintptr_t *)next == size;
}

/* Walks the chunks from c (waypoint index at, or -1 for the heap's start lo) to the one holding p, mending the
 * waypoints on the way. Returns the end of the user's memory of p's chunk (its next chunk + 8), 0 when p lies in a
 * chunk's header, or 1 when the walk stopped at a malformed chunk or the step bound. */
static uintptr_t heap_walk(uintptr_t c, int at, uintptr_t p, uintptr_t top)
{
    unsigned next_wp = (unsigned)(at + 1), since = 0;
    for (unsigned n = 0; n < HEAP_WALK_MAX && c + 16 <= top; n++, since++) {
        uintptr_t w = *(const uintptr_t *)(c + 8);
        if (!heap_chunk_ok(c, w, top)) return heap_steps += n, 1;
        /* Waypoints the walk stepped over are not chunk starts any more; one it meets resets the stride. */
        while (next_wp < heap_wp_n && heap_wp[next_wp] < c) heap_wp_remove(next_wp);
        if (next_wp < heap_wp_n && heap_wp[next_wp] == c) next_wp++, since = 0;
        else if (since >= HEAP_STRIDE && heap_wp_insert(next_wp, c)) next_wp++, since = 0;
        uintptr_t next = c + (w & ~(uintptr_t)7);
        if (p < next + 8) {
            heap_steps += n;
            if (p < c + 16) return 0; /* in a chunk's header: no buffer of malloc's */
            unsigned k = heap_cache_next++ % HEAP_CACHE;
            heap_cache[k].chunk = c;
            heap_cache[k].word = w;
            heap_cache[k].end = next + 8;
            return next + 8;
        }
        c = next;
    }
    heap_steps += HEAP_WALK_MAX;
    return 1;
}

/* Slices are no longer judged: the first thread to say so tells the analyzer (heap_buffer), which names the check
 * in the report's "Not checked" instead of letting it pass silently. */
static void heap_walks_off(void) { atomic_store_explicit(&heap_walk_off, 1, memory_order_relaxed); }
static _Atomic int heap_off_told;

/* The bytes from p to the end of the heap chunk holding it, when fewer than reach; -1 when it holds reach bytes
 * or that is not known. */
static int64_t heap_room(uintptr_t p, int64_t reach)
{
    uintptr_t lo = msc_heap_lo, top = (uintptr_t)sbrk(0);
    if (p < lo + 16 || p >= top || top == (uintptr_t)-1) return -1;
    /* The usual case, p begins a chunk large enough: its size word says so. A word before a slice of an array
     * may look like one too, so a room too small is only believed from the walk. */
    uintptr_t c = p - 16, w = *(const uintptr_t *)(c + 8);
    if (heap_chunk_ok(c, w, top) && (int64_t)(c + (w & ~(uintptr_t)7) + 8 - p) >= reach) return -1;
    for (int i = 0; i < HEAP_CACHE; i++)
        if (p >= heap_cache[i].chunk + 16 && p < heap_cache[i].end &&
            *(const uintptr_t *)(heap_cache[i].chunk + 8) == heap_cache[i].word)
            return (int64_t)(heap_cache[i].end - p) >= reach ? -1 : (int64_t)(heap_cache[i].end - p);
    if (atomic_load_explicit(&heap_walk_off, memory_order_relaxed)) return -1;
    if (pthread_mutex_trylock(&heap_lock) != 0) return -1;
    heap_walks++;
    /* The nearest waypoint at or below p that still looks like a chunk start (heap_wp_plausible); those that do
     * not are dropped, and the walk starts from an earlier one. */
    int at = -1;
    for (unsigned a = 0, b = heap_wp_n; a < b;) {
        unsigned m = (a + b) / 2;
        if (heap_wp[m] <= p) at = (int)m, a = m + 1;
        else b = m;
    }
    while (at >= 0 && !heap_wp_plausible(heap_wp[at], top)) heap_wp_remove((unsigned)at--);
    uintptr_t end = heap_walk(at < 0 ? lo : heap_wp[at], at, p, top);
    if (at >= 0 && (end == 1 || (end > 1 && (int64_t)(end - p) < reach))) {
        /* From a waypoint that may be stale: believe only the walk from the start, which rebuilds the waypoints. */
        heap_wp_n = 0;
        end = heap_walk(lo, -1, p, top);
        at = -1;
    }
    if (end == 1 && at < 0) heap_walks_off();
    if (heap_steps > heap_step_free + HEAP_STEP_PER_WALK * heap_walks) heap_walks_off();
    pthread_mutex_unlock(&heap_lock);
    if (end <= 1) return -1;
    return (int64_t)(end - p) >= reach ? -1 : (int64_t)(end - p);
}

/* A buffer in the main heap: count elements of a predefined type must end inside its chunk. */
static __attribute__((noinline, cold)) void heap_buffer(msc_call *c, const void *buf, int count, MPI_Datatype t,
                                                        uint64_t role, int param)
{
    /* A loop sending the same block from the same line is judged once: the last buffer judged at each of 16 slots
     * (by site and buffer) is passed at the cost of a hash and four compares. A block freed and allocated again
     * smaller at the same address is then not judged again: silent, never wrong. */
    unsigned k = (unsigned)(((c->site ^ (uintptr_t)buf) * 0x9e3779b97f4a7c15ull) >> 60);
    if (heap_judged[k].site == c->site && heap_judged[k].buf == buf && heap_judged[k].count == count &&
        heap_judged[k].t == t)
        return;
    heap_judged[k].site = c->site;
    heap_judged[k].buf = buf;
    heap_judged[k].count = count;
    heap_judged[k].t = t;
    if (count <= 0 || msc_basic_type_id(t) < 0) return;
    MPI_Aint lb = 0, ext = 0;
    if (PMPI_Type_get_extent(t, &lb, &ext) != MPI_SUCCESS || ext <= 0) return;
    int64_t reach = (int64_t)count * (int64_t)ext;
    int64_t room = heap_room((uintptr_t)buf, reach);
    if (atomic_load_explicit(&heap_walk_off, memory_order_relaxed) &&
        !atomic_exchange_explicit(&heap_off_told, 1, memory_order_relaxed)) {
        pthread_mutex_lock(&heap_lock);
        int64_t steps = (int64_t)heap_steps, walks = (int64_t)heap_walks;
        pthread_mutex_unlock(&heap_lock);
        msc_finding(c, MSC_CHECK_HEAP_SLICES_UNCHECKED, -1, steps, walks, 0);
    }
    if (room < 0) return;
    /* A loop repeating the call is one finding: the same site, buffer and reach are not sent again. */
    for (int i = 0; i < HEAP_CACHE; i++)
        if (heap_told[i].site == c->site && heap_told[i].buf == buf && heap_told[i].reach == reach) return;
    k = heap_told_next++ % HEAP_CACHE;
    heap_told[k].site = c->site;
    heap_told[k].buf = buf;
    heap_told[k].reach = reach;
    msc_finding(c, MSC_CHECK_HEAP_BUFFER_TOO_SMALL, role ? param_index(c->func, role) : param, reach, room, 0);
}

/* A buffer of a call that holds count × type: judged in the stack or the heap, wherever it lies. */
static inline __attribute__((always_inline)) void object_buffer(msc_call *c, const void *buf, int count,
                                                                MPI_Datatype t, uint64_t role)
{
    if (stk.size == 0) stack_init();
    /* The parameter is named by its role, looked up only when a description or finding is sent. */
    if ((uintptr_t)buf - stk.lo < stk.size) stack_buffer(c, buf, count, t, role, -1);
    else if (in_heap(buf)) heap_buffer(c, buf, count, t, role, -1);
}

/* Memory given to MPI by its address and size in bytes (a window's): the object at base must hold size bytes. */
void msc_object_bytes(msc_call *c, int param, const void *base, int64_t size)
{
    if (size <= 0 || size > INT32_MAX || !base) return;
    if (stk.size == 0) stack_init();
    if ((uintptr_t)base - stk.lo < stk.size) stack_buffer(c, base, (int)size, MPI_BYTE, 0, param);
    else if (in_heap(base)) heap_buffer(c, base, (int)size, MPI_BYTE, 0, param);
}


/* A buffer may be NULL only when nothing is read or written; with a derived type NULL is MPI_BOTTOM and
 * the addresses are absolute, so only predefined types are judged. A buffer in the thread's stack (or a thread
 * that has not asked for its stack yet) takes the slow path above: two loads and a compare for the others. */
static MSC_CHECK_INLINE void buf_ok(msc_call *c, const void *buf, int count, MPI_Datatype t, int dtype_valid, uint64_t role)
{
    if (__builtin_expect((uintptr_t)buf - stk.lo < stk.size || stk.size == 0 || in_heap(buf), 0) && dtype_valid)
        object_buffer(c, buf, count, t, role);
    if (buf == MPI_IN_PLACE) {
        finding_role(c, MSC_CHECK_IN_PLACE_NOT_ALLOWED, role, -1, 0);
        return;
    }
    if (buf == NULL && count > 0 && dtype_valid && msc_basic_type_id(t) >= 0) {
        int size = 0;
        PMPI_Type_size(t, &size);
        if (size > 0) finding_role(c, MSC_CHECK_NULL_BUFFER, role, 0, count);
    }
}

/* What the checks ask MPI about a communicator (intercommunicator or not, its sizes, this process's rank), asked
 * once per communicator and thread: two PMPI queries cost more than the rest of a send's checks, and a collective
 * judging its root or its in-place buffers asks up to three. A handle may be reused after MPI_Comm_free, so every
 * free or creation bumps a generation that empties the per-thread caches. */
typedef struct {
    int inter; /* an intercommunicator */
    int size;  /* the local group's size */
    int peers; /* the possible peers of a point-to-point call and roots of a rooted collective: the remote
                  group's size on an intercommunicator */
    int rank;  /* this process's rank in the local group */
    /* Its process topology's in and out degrees (msc_topo_degrees), asked at the first neighbourhood collective:
     * topo -1 not asked yet, 0 none, 1 known. */
    int topo, topo_in, topo_out;
} comm_facts;
#define PEER_CACHE 8
static __thread struct {
    uint32_t gen;
    int next, last;
    MPI_Comm comm[PEER_CACHE];
    comm_facts facts[PEER_CACHE];
} peers __attribute__((tls_model("initial-exec")));

static __attribute__((noinline)) const comm_facts *comm_facts_miss(MPI_Comm comm, uint32_t gen)
{
    if (peers.gen != gen) {
        for (int i = 0; i < PEER_CACHE; i++) peers.comm[i] = MPI_COMM_NULL;
        peers.gen = gen;
    }
    for (int i = 0; i < PEER_CACHE; i++)
        if (peers.comm[i] == comm) {
            peers.last = i;
            return &peers.facts[i];
        }
    comm_facts f = { 0, 0, 0, 0, -1, 0, 0 };
    PMPI_Comm_test_inter(comm, &f.inter);
    PMPI_Comm_size(comm, &f.size);
    PMPI_Comm_rank(comm, &f.rank);
    if (f.inter) PMPI_Comm_remote_size(comm, &f.peers);
    else f.peers = f.size;
    int k = peers.next++ % PEER_CACHE;
    peers.comm[k] = comm;
    peers.facts[k] = f;
    peers.last = k;
    return &peers.facts[k];
}

/* The communicator of the thread's previous call first: most programs use one at a time. Only for a valid
 * communicator (comm_ok) of an initialized MPI. */
static MSC_CHECK_INLINE const comm_facts *facts_of(MPI_Comm comm)
{
    uint32_t gen = atomic_load_explicit(&comm_gen, memory_order_acquire) + 1; /* 0: the cache is empty */
    if (MSC_LIKELY(peers.gen == gen && peers.comm[peers.last] == comm)) return &peers.facts[peers.last];
    return comm_facts_miss(comm, gen);
}

static MSC_CHECK_INLINE int peer_limit(MPI_Comm comm) { return facts_of(comm)->peers; }

/* A neighbourhood collective's degrees: asked of MPI once per communicator and thread (a v/w collective asks for
 * them for each of its arrays, and a program calls it on one communicator again and again). */
int msc_topo_degrees(MPI_Comm comm, int *in, int *out)
{
    if (comm == MPI_COMM_NULL || !msc_mpi_ready) return msc_topo_degrees_ask(comm, in, out);
    comm_facts *f = (comm_facts *)facts_of(comm); /* this thread's own cache */
    if (f->topo < 0) f->topo = msc_topo_degrees_ask(comm, &f->topo_in, &f->topo_out);
    *in = f->topo_in;
    *out = f->topo_out;
    return f->topo;
}

static MSC_CHECK_INLINE void rank_ok(msc_call *c, int r, int limit, int any_ok, uint64_t role)
{
    if (r == MPI_PROC_NULL || (any_ok && r == MPI_ANY_SOURCE)) return;
    if (r < 0 || r >= limit) finding_role(c, MSC_CHECK_RANK_OUT_OF_RANGE, role, r, limit);
}

static MSC_CHECK_INLINE void tag_ok(msc_call *c, int tag, int any_ok, uint64_t role)
{
    if (any_ok && tag == MPI_ANY_TAG) return;
    if (tag < 0 || tag > msc_tag_ub) finding_role(c, MSC_CHECK_INVALID_TAG, role, tag, msc_tag_ub);
}

/* ---- buffered sends ----
 * The attached size is known exactly (MPI_Buffer_attach/detach). When MPI releases the space a buffered
 * message took is not: it is when the message has been transmitted, which this process cannot see. So the
 * check here flags only what is certain: one message that needs more than the whole attached buffer (or no
 * buffer at all). Messages that each fit but together overflow the buffer are the analyzer's question (it
 * sees when their receives complete): every buffered send (Bsend, Ibsend, and Bsend_init for the Starts of
 * its request) gets a BSEND record with the bytes it takes in the buffer. */
static _Atomic int64_t attached_bytes;

void msc_buffer_attached(int64_t size) { atomic_store_explicit(&attached_bytes, size, memory_order_relaxed); }

static void bsend_ok(msc_call *c, const msc_args *a)
{
    int starts = c->func == MSC_FN_MPI_Bsend_init;
    if (a->count < 0 || MSC_IS_NULL(MPI_Datatype, a->datatype) || MSC_IS_NULL(MPI_Comm, a->comm) || a->dest == MPI_PROC_NULL)
        return;
    int packed = 0;
    if (PMPI_Pack_size(a->count, a->datatype, a->comm, &packed) != MPI_SUCCESS) return;
    int64_t need = (int64_t)packed + MPI_BSEND_OVERHEAD;
    int64_t w[2] = { need, packed };
    msc_emit(MSC_KIND_BSEND, 0, c->func, c->seq, msc_stamp(), c->site, w, 2, NULL, 0);
    /* A persistent request takes its space at each MPI_Start, when the buffer attached then counts. */
    if (starts) return;
    int64_t have = atomic_load_explicit(&attached_bytes, memory_order_relaxed);
    if (need > have) msc_finding(c, MSC_CHECK_BSEND_BUFFER_TOO_SMALL, -1, need, have, packed);
}

/* A receive into a type whose entries overlap: the receive's type is the datatype of a receive's class (kind 1),
 * the receive type of a Sendrecv, the one type of a Sendrecv_replace (kind 2). */
static __attribute__((noinline, cold)) void overlapping_recv(msc_call *c, const msc_args *a, int kind, uint64_t m,
                                                             int dt, int rt)
{
    if (dt == 2 && (kind == 1 || (m & MSC_ROLE_RWBUF)))
        finding_role(c, MSC_CHECK_OVERLAPPING_RECV_TYPE, MSC_ROLE_DATATYPE, msc_w_MPI_Datatype(a->datatype), 0);
    if (rt == 2 && kind == 2)
        finding_role(c, MSC_CHECK_OVERLAPPING_RECV_TYPE, MSC_ROLE_RTYPE, msc_w_MPI_Datatype(a->rtype), 0);
}

/* kind: 0 send, 1 receive (or probe), 2 send and receive. */
/* only: the roles the caller's class can have, a constant, so that the compiler drops the tests of the others
 * (a send's class has no receive buffer, source or send-receive roles: −N instructions per call, callgrind in
 * bench/shim-overhead/README.md). */
static MSC_CHECK_INLINE void check_p2p(msc_call *c, const msc_args *a, int kind, uint64_t only)
{
    if (!msc_checks_on) return;
    uint64_t m = msc_role_mask[c->func] & only;
    int limit = -1;
    if ((m & MSC_ROLE_COMM) && comm_ok(c, a->comm)) limit = peer_limit(a->comm);
    if (m & MSC_ROLE_COUNT) count_ok(c, a->count, MSC_ROLE_COUNT);
    if (m & MSC_ROLE_SCOUNT) count_ok(c, a->scount, MSC_ROLE_SCOUNT);
    if (m & MSC_ROLE_RCOUNT) count_ok(c, a->rcount, MSC_ROLE_RCOUNT);
    int dt = (m & MSC_ROLE_DATATYPE) ? dtype_ok(c, a->datatype, MSC_ROLE_DATATYPE) : 0;
    int st = (m & MSC_ROLE_STYPE) ? dtype_ok(c, a->stype, MSC_ROLE_STYPE) : 0;
    int rt = (m & MSC_ROLE_RTYPE) ? dtype_ok(c, a->rtype, MSC_ROLE_RTYPE) : 0;
    if (m & MSC_ROLE_SBUF) buf_ok(c, a->sbuf, (m & MSC_ROLE_SCOUNT) ? a->scount : a->count,
                                  (m & MSC_ROLE_STYPE) ? a->stype : a->datatype, (m & MSC_ROLE_STYPE) ? st : dt,
                                  MSC_ROLE_SBUF);
    if (m & MSC_ROLE_RBUF) buf_ok(c, a->rbuf, (m & MSC_ROLE_RCOUNT) ? a->rcount : a->count,
                                  (m & MSC_ROLE_RTYPE) ? a->rtype : a->datatype, (m & MSC_ROLE_RTYPE) ? rt : dt,
                                  MSC_ROLE_RBUF);
    if (m & MSC_ROLE_RWBUF) buf_ok(c, a->rwbuf, a->count, a->datatype, dt, MSC_ROLE_RWBUF);
    /* A receive into a type whose entries overlap (dtype_ok's 2): one test here, the rest out of line. */
    if (__builtin_expect(kind != 0 && ((dt | rt) & 2), 0)) overlapping_recv(c, a, kind, m, dt, rt);
    if (limit >= 0) {
        if (m & MSC_ROLE_DEST) rank_ok(c, a->dest, limit, 0, MSC_ROLE_DEST);
        if (m & MSC_ROLE_SOURCE) rank_ok(c, a->source, limit, 1, MSC_ROLE_SOURCE);
    }
    if (m & MSC_ROLE_TAG) tag_ok(c, a->tag, kind == 1, MSC_ROLE_TAG);
    if (m & MSC_ROLE_STAG) tag_ok(c, a->stag, 0, MSC_ROLE_STAG);
    if (m & MSC_ROLE_RTAG) tag_ok(c, a->rtag, 1, MSC_ROLE_RTAG);
    /* Where MPI stores the new request (Isend, Irecv, the persistent inits): NULL makes MPI fail or crash in the
     * call, so it is reported before it. */
    if ((m & MSC_ROLE_REQUEST_OUT) && !a->request_out)
        finding_role(c, MSC_CHECK_NULL_POINTER, MSC_ROLE_REQUEST_OUT, 0, 0);
    /* Only buffered sends: the test here, not in the call (every send paid the call). */
    if (kind == 0 && limit >= 0 && dt &&
        (c->func == MSC_FN_MPI_Bsend || c->func == MSC_FN_MPI_Ibsend || c->func == MSC_FN_MPI_Bsend_init))
        bsend_ok(c, a);
    flush_findings();
}

void msc_check_p2p(msc_call *c, const msc_args *a, int kind) { check_p2p(c, a, kind, ~0ull); }
void msc_check_send(msc_call *c, const msc_args *a)
{
    check_p2p(c, a, 0,
              MSC_ROLE_COMM | MSC_ROLE_COUNT | MSC_ROLE_DATATYPE | MSC_ROLE_SBUF | MSC_ROLE_DEST | MSC_ROLE_TAG |
                  MSC_ROLE_REQUEST_OUT);
}
void msc_check_recv(msc_call *c, const msc_args *a)
{
    check_p2p(c, a, 1,
              MSC_ROLE_COMM | MSC_ROLE_COUNT | MSC_ROLE_DATATYPE | MSC_ROLE_RBUF | MSC_ROLE_SOURCE | MSC_ROLE_TAG |
                  MSC_ROLE_REQUEST_OUT);
}

static int dtype_usable(MPI_Datatype t)
{
    if (MSC_IS_NULL(MPI_Datatype, t)) return 0;
    int st = msc_dtype_state(t);
    return st != MSC_DT_FREED && st != MSC_DT_CREATED;
}

/* The stack buffers of the collectives whose buffers hold count × type, or n blocks of it (n the size of the
 * intracommunicator), on the ranks that use them: judged as a send's or receive's buffer (stack_buffer). */
static __attribute__((noinline, cold)) void coll_stack_buffers(msc_call *c, const msc_args *a, uint64_t m)
{
    int f = c->func, inter = 0, n = 0, me = 0;
    if (!(m & MSC_ROLE_COMM) || MSC_IS_NULL(MPI_Comm, a->comm) || msc_comm_freed(a->comm)) return;
    const comm_facts *cf = facts_of(a->comm);
    inter = cf->inter;
    if (inter) return;
    n = cf->size;
    me = cf->rank;
    int root = (m & MSC_ROLE_ROOT) && a->root == me;
    int bcast = f == MSC_FN_MPI_Bcast || f == MSC_FN_MPI_Ibcast;
    int reduce = f == MSC_FN_MPI_Reduce || f == MSC_FN_MPI_Ireduce;
    int allreduce = f == MSC_FN_MPI_Allreduce || f == MSC_FN_MPI_Iallreduce;
    int gather = f == MSC_FN_MPI_Gather || f == MSC_FN_MPI_Igather;
    int scatter = f == MSC_FN_MPI_Scatter || f == MSC_FN_MPI_Iscatter;
    int allgather = f == MSC_FN_MPI_Allgather || f == MSC_FN_MPI_Iallgather;
    int alltoall = f == MSC_FN_MPI_Alltoall || f == MSC_FN_MPI_Ialltoall;
    if (bcast) {
        if (dtype_usable(a->datatype)) object_buffer(c, a->rwbuf, a->count, a->datatype, MSC_ROLE_RWBUF);
        return;
    }
    if (reduce || allreduce) {
        if (!dtype_usable(a->datatype)) return;
        if (a->sbuf != MPI_IN_PLACE) object_buffer(c, a->sbuf, a->count, a->datatype, MSC_ROLE_SBUF);
        if (allreduce || root) object_buffer(c, a->rbuf, a->count, a->datatype, MSC_ROLE_RBUF);
        return;
    }
    if (!(gather || scatter || allgather || alltoall) || a->scount < 0 || a->rcount < 0 || n <= 0) return;
    /* Overflow of n × count is left alone (the engine's counts say more then). */
    if ((int64_t)n * a->scount > INT32_MAX || (int64_t)n * a->rcount > INT32_MAX) return;
    int s_used = scatter ? root : a->sbuf != MPI_IN_PLACE;
    int s_blocks = (scatter || alltoall) ? n : 1;
    int r_used = gather ? root : a->rbuf != MPI_IN_PLACE;
    int r_blocks = (gather || allgather || alltoall) ? n : 1;
    if (s_used && dtype_usable(a->stype)) object_buffer(c, a->sbuf, s_blocks * a->scount, a->stype, MSC_ROLE_SBUF);
    if (r_used && dtype_usable(a->rtype)) object_buffer(c, a->rbuf, r_blocks * a->rcount, a->rtype, MSC_ROLE_RBUF);
}

static inline int on_stack(const void *p) { return (uintptr_t)p - stk.lo < stk.size || stk.size == 0; }

/* ---- the buffers and counts of collectives ----
 * Point-to-point's buffer and count checks, judged only where the standard makes the argument significant
 * (MPI-3.1 §5.2.2 and each collective's section): the receive buffer of a gather or a reduce and the send buffer
 * of a scatter at the root only; on an intercommunicator the root's side (MPI_ROOT) or the other group's, and
 * nothing at MPI_PROC_NULL; MPI_IN_PLACE only where the standard allows it (the send buffer of the unrooted
 * reductions, allgathers and alltoalls and of a gather or reduce at its root, the receive buffer of a scatter at
 * its root, on intracommunicators only), and then the counts and type it replaces are ignored. A NULL buffer is
 * legal when nothing is moved (zero counts, a zero-size type) and with a derived type (MPI_BOTTOM and absolute
 * addresses), as for point-to-point. */
#define COLL_BUF_ROLES (MSC_ROLE_SBUF | MSC_ROLE_RBUF | MSC_ROLE_RWBUF)

/* Whether anything could be wrong: a NULL or in-place buffer, or a negative count. A few compares (and a pass over
 * the count arrays of the v-variants, which the record copies anyway); the judgement is out of line. The counts
 * and arrays of roles a function lacks are zero in its msc_args, so they need no test of the role mask; a missing
 * buffer is NULL, so the buffers do. */
static MSC_CHECK_INLINE int coll_suspect(const msc_args *a, uint64_t m)
{
    int neg = a->count | a->scount | a->rcount;
    for (int i = 0; i < a->scounts_n; i++) neg |= a->scounts[i];
    for (int i = 0; i < a->rcounts_n; i++) neg |= a->rcounts[i];
    int s = ((m & MSC_ROLE_SBUF) && (a->sbuf == NULL || a->sbuf == MPI_IN_PLACE)) |
            ((m & MSC_ROLE_RBUF) && (a->rbuf == NULL || a->rbuf == MPI_IN_PLACE)) |
            ((m & MSC_ROLE_RWBUF) && (a->rwbuf == NULL || a->rwbuf == MPI_IN_PLACE));
    return s | (neg < 0);
}

/* A predefined type whose elements have bytes: what a NULL buffer cannot hold. */
static int moves_bytes(MPI_Datatype t)
{
    if (!dtype_usable(t) || msc_basic_type_id(t) < 0) return 0;
    int size = 0;
    PMPI_Type_size(t, &size);
    return size > 0;
}

/* The first negative entry of a count array, reported; 1 when there was one. */
static int counts_negative(msc_call *c, const int *counts, int n, uint64_t role)
{
    for (int i = 0; i < n; i++)
        if (counts[i] < 0) {
            finding_role(c, MSC_CHECK_NEGATIVE_COUNT, role, counts[i], i);
            return 1;
        }
    return 0;
}

/* One side (send or receive) of a collective where it is significant: the buffer, its scalar count (count_role 0:
 * none, or the shared COUNT the caller judged) or its count array (counts_role; judged: the caller judged its
 * entries already), the entry of that array this process's buffer holds (only; -1: every entry), its type (types:
 * Alltoallw's array) and whether it holds any block at all (blocks 0: a neighbourhood collective without
 * neighbours on that side, or a side whose amounts have no role to read them from). */
typedef struct coll_side {
    const void *buf;
    uint64_t buf_role, count_role, counts_role;
    int count;
    const int *counts;
    int counts_n, only, judged;
    MPI_Datatype t;
    const MPI_Datatype *types;
    int inplace_ok, blocks;
} coll_side;

static void coll_side_ok(msc_call *c, const coll_side *s)
{
    if (s->buf == MPI_IN_PLACE) {
        /* The counts and type of an in-place side are ignored; where in place is not allowed it is the finding. */
        if (!s->inplace_ok) finding_role(c, MSC_CHECK_IN_PLACE_NOT_ALLOWED, s->buf_role, -1, 0);
        return;
    }
    if (s->count_role && s->count < 0) {
        count_ok(c, s->count, s->count_role);
        return;
    }
    if (s->counts_role && !s->judged && s->counts && counts_negative(c, s->counts, s->counts_n, s->counts_role)) return;
    if (s->buf != NULL || s->blocks == 0) return;
    /* NULL: an error when some block moves bytes of a predefined type. */
    int64_t moved = 0;
    if (s->counts_role) {
        if (!s->counts) return;
        for (int i = 0; i < s->counts_n && !moved; i++)
            if ((s->only < 0 || i == s->only) && s->counts[i] > 0 && moves_bytes(s->types ? s->types[i] : s->t))
                moved = s->counts[i];
    } else if (s->count > 0 && moves_bytes(s->t)) {
        moved = s->count;
    }
    if (moved > 0) finding_role(c, MSC_CHECK_NULL_BUFFER, s->buf_role, 0, moved);
}

static int is_neighbor(int f)
{
    return f == MSC_FN_MPI_Neighbor_allgather || f == MSC_FN_MPI_Neighbor_allgatherv ||
           f == MSC_FN_MPI_Neighbor_alltoall || f == MSC_FN_MPI_Neighbor_alltoallv ||
           f == MSC_FN_MPI_Neighbor_alltoallw || f == MSC_FN_MPI_Ineighbor_allgather ||
           f == MSC_FN_MPI_Ineighbor_allgatherv || f == MSC_FN_MPI_Ineighbor_alltoall ||
           f == MSC_FN_MPI_Ineighbor_alltoallv || f == MSC_FN_MPI_Ineighbor_alltoallw;
}

static __attribute__((noinline, cold)) void coll_buffers(msc_call *c, const msc_args *a, uint64_t m)
{
    int f = c->func, inter = 0, me = -1;
    if (m & MSC_ROLE_COMM) {
        /* A null or freed communicator is comm_ok's finding; MPI is asked about valid ones only. */
        if (MSC_IS_NULL(MPI_Comm, a->comm) || msc_comm_freed(a->comm) || !msc_mpi_ready) return;
        const comm_facts *cf = facts_of(a->comm);
        inter = cf->inter;
        if (!inter) me = cf->rank;
    }
    int gathers = f == MSC_FN_MPI_Gather || f == MSC_FN_MPI_Igather || f == MSC_FN_MPI_Gatherv ||
                  f == MSC_FN_MPI_Igatherv || f == MSC_FN_MPI_Reduce || f == MSC_FN_MPI_Ireduce;
    int scatters = f == MSC_FN_MPI_Scatter || f == MSC_FN_MPI_Iscatter || f == MSC_FN_MPI_Scatterv ||
                   f == MSC_FN_MPI_Iscatterv;
    int neighbor = is_neighbor(f);
    int reduce_scatter = f == MSC_FN_MPI_Reduce_scatter || f == MSC_FN_MPI_Ireduce_scatter;
    int reduce_scatter_block = f == MSC_FN_MPI_Reduce_scatter_block || f == MSC_FN_MPI_Ireduce_scatter_block;
    /* Unrooted collectives on an intracommunicator (allgathers, alltoalls, reductions, scans) take MPI_IN_PLACE as
     * the send buffer on every member; neighbourhood collectives, file calls and intercommunicators never. */
    int sig_s = 1, sig_r = 1, in_place_s = !inter && (m & MSC_ROLE_COMM) && !(m & MSC_ROLE_ROOT) && !neighbor;
    int in_place_r = 0;
    if (m & MSC_ROLE_ROOT) {
        if (inter && a->root == MPI_PROC_NULL) return; /* nothing of its is significant */
        int root_side = inter ? a->root == MPI_ROOT : a->root == me;
        if (gathers) {
            sig_s = !inter || !root_side;
            sig_r = root_side;
            in_place_s = !inter && root_side;
        } else if (scatters) {
            sig_s = root_side;
            sig_r = !inter || !root_side;
            in_place_r = !inter && root_side;
        }
    }
    /* MPI_Exscan's receive buffer is not significant at rank 0, which gets no result. */
    if ((f == MSC_FN_MPI_Exscan || f == MSC_FN_MPI_Iexscan) && me == 0) sig_r = 0;
    int deg_in = 1, deg_out = 1;
    if (neighbor && ((a->sbuf == NULL && sig_s) || (a->rbuf == NULL && sig_r)) &&
        !msc_topo_degrees(a->comm, &deg_in, &deg_out))
        deg_in = deg_out = 0;
    int judged = 0;
    /* The count that MPI_Bcast and the reductions share, once, where a side uses it. */
    if ((m & MSC_ROLE_COUNT) && ((m & MSC_ROLE_RWBUF) || sig_r || (sig_s && a->sbuf != MPI_IN_PLACE))) {
        if (a->count < 0) {
            count_ok(c, a->count, MSC_ROLE_COUNT);
            return;
        }
    }
    /* MPI_Reduce_scatter's recvcounts: every member's block; the send buffer holds them all. */
    if (reduce_scatter) {
        if (a->rcounts && counts_negative(c, a->rcounts, a->rcounts_n, MSC_ROLE_RCOUNTS)) return;
        judged = 1;
    }
    if (m & MSC_ROLE_RWBUF) {
        coll_side s = { .buf = a->rwbuf, .buf_role = MSC_ROLE_RWBUF, .count = a->count, .only = -1, .t = a->datatype,
                        .blocks = 1 };
        coll_side_ok(c, &s);
    }
    if ((m & MSC_ROLE_SBUF) && sig_s) {
        coll_side s = { .buf = a->sbuf,
                        .buf_role = MSC_ROLE_SBUF,
                        .count_role = m & MSC_ROLE_SCOUNT,
                        .counts_role = m & (MSC_ROLE_SCOUNTS | (reduce_scatter ? MSC_ROLE_RCOUNTS : 0)),
                        .count = (m & MSC_ROLE_SCOUNT) ? a->scount : a->count,
                        .counts = reduce_scatter ? a->rcounts : a->scounts,
                        .counts_n = reduce_scatter ? a->rcounts_n : a->scounts_n,
                        .only = -1,
                        .judged = judged,
                        .t = (m & MSC_ROLE_STYPE) ? a->stype : a->datatype,
                        .types = (m & MSC_ROLE_STYPES) ? a->stypes : NULL,
                        .inplace_ok = in_place_s,
                        .blocks = deg_out };
        /* MPI_Reduce_scatter_block's send buffer holds a block of recvcount for every member. */
        if (reduce_scatter_block) s.count = a->rcount;
        /* A side whose amounts have no role to read them from: only MPI_IN_PLACE is judged there. */
        else if (!(m & (MSC_ROLE_SCOUNT | MSC_ROLE_SCOUNTS | MSC_ROLE_COUNT)) && !reduce_scatter) s.blocks = 0;
        coll_side_ok(c, &s);
    }
    if ((m & MSC_ROLE_RBUF) && sig_r) {
        coll_side s = { .buf = a->rbuf,
                        .buf_role = MSC_ROLE_RBUF,
                        .count_role = m & MSC_ROLE_RCOUNT,
                        .counts_role = m & MSC_ROLE_RCOUNTS,
                        .count = (m & MSC_ROLE_RCOUNT) ? a->rcount : a->count,
                        .counts = a->rcounts,
                        .counts_n = a->rcounts_n,
                        .only = reduce_scatter ? me : -1,
                        .judged = judged,
                        .t = (m & MSC_ROLE_RTYPE) ? a->rtype : a->datatype,
                        .types = (m & MSC_ROLE_RTYPES) ? a->rtypes : NULL,
                        .inplace_ok = in_place_r,
                        .blocks = deg_in };
        /* On an intercommunicator, which of MPI_Reduce_scatter's entries is this member's is not judged. */
        if (!(m & (MSC_ROLE_RCOUNT | MSC_ROLE_RCOUNTS | MSC_ROLE_COUNT)) || (reduce_scatter && inter)) s.blocks = 0;
        coll_side_ok(c, &s);
    }
}

void msc_check_coll(msc_call *c, const msc_args *a)
{
    if (!msc_checks_on) return;
    uint64_t m = msc_role_mask[c->func];
    if ((m & MSC_ROLE_COMM) && comm_ok(c, a->comm) && (m & MSC_ROLE_ROOT)) {
        const comm_facts *cf = facts_of(a->comm);
        int n = cf->peers;
        if (cf->inter) {
            if (a->root != MPI_ROOT && a->root != MPI_PROC_NULL && (a->root < 0 || a->root >= n))
                finding_role(c, MSC_CHECK_ROOT_OUT_OF_RANGE, MSC_ROLE_ROOT, a->root, n);
        } else {
            if (a->root < 0 || a->root >= n) finding_role(c, MSC_CHECK_ROOT_OUT_OF_RANGE, MSC_ROLE_ROOT, a->root, n);
        }
    }
    /* A call without buffers (MPI_Comm_spawn_multiple's count of commands) has its count judged everywhere. */
    if ((m & MSC_ROLE_COUNT) && !(m & COLL_BUF_ROLES)) count_ok(c, a->count, MSC_ROLE_COUNT);
    int dt = (m & MSC_ROLE_DATATYPE) ? dtype_ok(c, a->datatype, MSC_ROLE_DATATYPE) : 0;
    if (m & MSC_ROLE_OP) {
        if (MSC_IS_NULL(MPI_Op, a->op)) {
            finding_role(c, MSC_CHECK_NULL_OP, MSC_ROLE_OP, 0, 0);
        } else if (dt) {
            int bt = msc_basic_type_id(a->datatype), op = msc_op_id(a->op);
            if (bt >= 0 && op >= 0 && !msc_op_allows[op][bt])
                finding_role(c, MSC_CHECK_OP_DATATYPE, MSC_ROLE_OP, op, bt);
        }
    }
    if ((m & COLL_BUF_ROLES) && coll_suspect(a, m)) coll_buffers(c, a, m);
    if (__builtin_expect(((m & MSC_ROLE_SBUF) && (on_stack(a->sbuf) || in_heap(a->sbuf))) ||
                             ((m & MSC_ROLE_RBUF) && (on_stack(a->rbuf) || in_heap(a->rbuf))) ||
                             ((m & MSC_ROLE_RWBUF) && (on_stack(a->rwbuf) || in_heap(a->rwbuf))),
                         0))
        coll_stack_buffers(c, a, m);
    flush_findings();
}

void msc_check_requests(msc_call *c, const msc_args *a)
{
    if (!msc_checks_on) return;
    uint64_t m = msc_role_mask[c->func];
    if (m & MSC_ROLE_REQUEST) {
        /* Waiting on or testing MPI_REQUEST_NULL is allowed; starting, cancelling or freeing it is not. A handle of
         * zero bits that is not MPI_REQUEST_NULL (Open MPI's is an object's address, MPICH's 0x2c000000) is no
         * request at all, in every call: an MPI_Request variable never set, which Open MPI fails in
         * MPI_Request_free and dereferences in MPI_Wait. */
        int null_ok = c->func == MSC_FN_MPI_Wait || c->func == MSC_FN_MPI_Test;
        int is_null = a->request_p && a->request == MPI_REQUEST_NULL;
        if (!a->request_p || (!null_ok && is_null) || (!is_null && MSC_IS_NULL(MPI_Request, a->request)))
            finding_role(c, MSC_CHECK_NULL_REQUEST, MSC_ROLE_REQUEST, 0, 0);
    }
    /* The flag of the Test family, where MPI writes whether the request completed. */
    if ((m & MSC_ROLE_FLAG) && !a->flag) finding_role(c, MSC_CHECK_NULL_POINTER, MSC_ROLE_FLAG, 0, 0);
    if (m & MSC_ROLE_REQUESTS) {
        if (a->count < 0) finding_role(c, MSC_CHECK_NEGATIVE_COUNT, MSC_ROLE_COUNT, a->count, 0);
        if (!a->requests && a->count > 0) finding_role(c, MSC_CHECK_NULL_REQUEST, MSC_ROLE_REQUESTS, 0, 0);
        if (c->func == MSC_FN_MPI_Startall && a->requests)
            for (int i = 0; i < a->requests_n; i++)
                if (a->requests[i] == MPI_REQUEST_NULL) {
                    finding_role(c, MSC_CHECK_NULL_REQUEST, MSC_ROLE_REQUESTS, i, 0);
                    break;
                }
    }
    flush_findings();
}


/* ---- one-sided communication ----
 * The size of each window's group, recorded when the window is made (a PMPI query then, never per access), so
 * that a target rank can be checked with one table lookup. A window missing from the table (full, or made before
 * the shim was on) only makes the rank check silent. */
static msc_table wins = MSC_TABLE(TABLE_FULL_WINDOWS);

/* v[1]: a fence was called on the window; v[2]: lock, lock_all and start epochs open. */
void msc_win_epoch(MPI_Win win, int func)
{
    slot *s = tbl_find(&wins, (uint64_t)msc_w_MPI_Win(win));
    if (!s) return;
    if (func == MSC_FN_MPI_Win_fence) atomic_store(&s->v[1], 1);
    else if (func == MSC_FN_MPI_Win_lock || func == MSC_FN_MPI_Win_lock_all || func == MSC_FN_MPI_Win_start)
        atomic_fetch_add(&s->v[2], 1);
    else if (func == MSC_FN_MPI_Win_unlock || func == MSC_FN_MPI_Win_unlock_all || func == MSC_FN_MPI_Win_complete)
        atomic_fetch_sub(&s->v[2], 1);
}

void msc_win_track(MPI_Win win, MPI_Comm comm, int freed)
{
    uint64_t k = (uint64_t)msc_w_MPI_Win(win);
    if (!k) return;
    if (freed) {
        slot *s = tbl_find(&wins, k);
        if (s) msc_tbl_del(s);
        return;
    }
    int n = 0;
    if (PMPI_Comm_size(comm, &n) != MPI_SUCCESS) return;
    /* This rank's part of the window: its size and displacement unit (a dynamic window has none: -1). */
    int64_t size = -1, unit = 1;
    int flag = 0, *flavor = NULL;
    MPI_Aint *sz = NULL;
    int *du = NULL;
    if (PMPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &flavor, &flag) == MPI_SUCCESS && flag && flavor &&
        *flavor != MPI_WIN_FLAVOR_DYNAMIC && PMPI_Win_get_attr(win, MPI_WIN_SIZE, &sz, &flag) == MPI_SUCCESS &&
        flag && sz && PMPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, &du, &flag) == MPI_SUCCESS && flag && du) {
        size = *sz;
        unit = *du;
    }
    slot *s = tbl_put(&wins, k);
    if (!s) return;
    atomic_store(&s->v[0], n);
    atomic_store(&s->v[1], 0);
    atomic_store(&s->v[2], 0);
    atomic_store(&s->v[3], size);
    atomic_store(&s->v[4], unit);
}

/* Whether an access would reach outside a window part of this rank's size and unit. The analyzer judges it with
 * the target's own size (rma-bounds.ts); Open MPI fails such an access (MPI_ERR_RMA_RANGE) and ends the job in
 * it (MPICH 4.0 on one host reads or writes past the part), so the shim sends the call's ENTER before forwarding
 * when the target's part is probably like its own. A target
 * with a larger part costs a needless flush, one with a smaller part may go unreported: never a wrong finding. */
static int win_out_of_range(slot *s, const msc_args *a, int ttype_ok)
{
    int64_t size = atomic_load(&s->v[3]), unit = atomic_load(&s->v[4]);
    if (size < 0 || !ttype_ok || a->tcount <= 0) return 0;
    MPI_Aint lb = 0, extent = 0;
    if (PMPI_Type_get_extent(a->ttype, &lb, &extent) != MPI_SUCCESS) return 0;
    int64_t lo = (int64_t)a->tdisp * unit + lb;
    return lo < 0 || lo + (int64_t)a->tcount * extent > size;
}


/* MPI_REPLACE and MPI_NO_OP apply to any predefined type in one-sided accumulates; the other predefined ops to
 * the types they reduce (spec typeGroups). A derived target type is made of one basic type MPI does not tell the
 * shim cheaply: not judged. */
static void rma_op_ok(msc_call *c, const msc_args *a, int target_type_ok)
{
    if (MSC_IS_NULL(MPI_Op, a->op)) {
        finding_role(c, MSC_CHECK_NULL_OP, MSC_ROLE_OP, 0, 0);
        return;
    }
    int op = msc_op_id(a->op);
    if (op < 0 || op == MSC_OPID_MPI_REPLACE || op == MSC_OPID_MPI_NO_OP || !target_type_ok) return;
    int bt = msc_basic_type_id(a->ttype);
    if (bt >= 0 && !msc_op_allows[op][bt]) finding_role(c, MSC_CHECK_OP_DATATYPE, MSC_ROLE_OP, op, bt);
}

/* Window calls: the window itself; for accesses (class rma) also counts, datatypes (origin, result and target),
 * origin buffers, the target rank and the op; for lock/unlock/flush the target rank. */
/* A window made over a local array of a function that has since returned (MPI_Win_create in a helper, the window
 * used after it): its base lies in this thread's stack below the caller's stack pointer, where no frame of the
 * program is live. Asked at the window's synchronizations and its free (not at each access), with a walk of two or
 * three frames only for a window over stack memory; once per window and thread. */
static __thread uint64_t win_told[4] __attribute__((tls_model("initial-exec")));

/* The caller's stack pointer at the call: the CFA libgcc gives the frame whose IP is the call site (as in
 * caller_frame_step). */
struct caller_sp {
    uintptr_t site, sp;
    int frames;
};
static _Unwind_Reason_Code caller_sp_step(struct _Unwind_Context *ctx, void *arg)
{
    struct caller_sp *f = arg;
    if (_Unwind_GetIP(ctx) == f->site) {
        f->sp = _Unwind_GetCFA(ctx);
        return _URC_END_OF_STACK;
    }
    return ++f->frames > 16 ? _URC_END_OF_STACK : _URC_NO_REASON;
}

static __attribute__((noinline, cold)) void win_memory_live(msc_call *c, MPI_Win win)
{
    void *base = NULL;
    int flag = 0;
    if (PMPI_Win_get_attr(win, MPI_WIN_BASE, &base, &flag) != MPI_SUCCESS || !flag || !base) return;
    if (stk.size == 0) stack_init();
    uintptr_t b = (uintptr_t)base;
    if (b - stk.lo >= stk.size) return;
    /* A window of no bytes has no memory to lose: the base MPI gives it means nothing (Open MPI's MPI_Win_allocate
     * of size 0 on every rank can hand out an address in the caller's stack). */
    MPI_Aint *size = NULL;
    if (PMPI_Win_get_attr(win, MPI_WIN_SIZE, &size, &flag) != MPI_SUCCESS || !flag || !size || *size == 0) return;
    /* Below the caller's stack pointer no frame of the program is live: the frames there now are MPI's and the
     * shim's, over the stack of the function that returned. */
    struct caller_sp f = { c->site, 0, 0 };
    _Unwind_Backtrace(caller_sp_step, &f);
    if (f.sp == 0 || b >= f.sp) return;
    uint64_t k = (uint64_t)msc_w_MPI_Win(win);
    for (int i = 0; i < 4; i++)
        if (win_told[i] == k) return;
    for (int i = 3; i > 0; i--) win_told[i] = win_told[i - 1];
    win_told[0] = k;
    finding_role(c, MSC_CHECK_WINDOW_MEMORY_RETURNED, MSC_ROLE_WIN, 0, 0);
}

void msc_check_win_memory(msc_call *c, const msc_args *a)
{
    if (!msc_checks_on || MSC_IS_NULL(MPI_Win, a->win) || !msc_mpi_ready) return;
    win_memory_live(c, a->win);
    flush_findings();
}

void msc_check_win(msc_call *c, const msc_args *a)
{
    if (!msc_checks_on) return;
    uint64_t m = msc_role_mask[c->func];
    if ((m & MSC_ROLE_WIN) && MSC_IS_NULL(MPI_Win, a->win)) {
        finding_role(c, MSC_CHECK_NULL_WIN, MSC_ROLE_WIN, 0, 0);
        flush_findings();
        return;
    }

    if ((m & MSC_ROLE_COMM) && !comm_ok(c, a->comm)) {
        flush_findings();
        return;
    }
    if (m & MSC_ROLE_COUNT) count_ok(c, a->count, MSC_ROLE_COUNT);
    if ((m & MSC_ROLE_SCOUNT) && !((m & MSC_ROLE_OP) && a->op == MPI_NO_OP)) count_ok(c, a->scount, MSC_ROLE_SCOUNT);
    if (m & MSC_ROLE_RCOUNT) count_ok(c, a->rcount, MSC_ROLE_RCOUNT);
    if (m & MSC_ROLE_TCOUNT) count_ok(c, a->tcount, MSC_ROLE_TCOUNT);
    /* With MPI_NO_OP the origin arguments are ignored (MPI allows a NULL buffer, and MPI_Get_accumulate's origin
     * count and datatype may be anything, MPI_DATATYPE_NULL included); the result buffer is always written. */
    int no_op = (m & MSC_ROLE_OP) && a->op == MPI_NO_OP;
    int dt = (m & MSC_ROLE_DATATYPE) ? dtype_ok(c, a->datatype, MSC_ROLE_DATATYPE) : 0;
    int st = (m & MSC_ROLE_STYPE) && !no_op ? dtype_ok(c, a->stype, MSC_ROLE_STYPE) : 0;
    if (m & MSC_ROLE_RTYPE) dtype_ok(c, a->rtype, MSC_ROLE_RTYPE);
    int tt = (m & MSC_ROLE_TTYPE) ? dtype_ok(c, a->ttype, MSC_ROLE_TTYPE) : 0;
    if ((m & MSC_ROLE_SBUF) && !no_op && c->func != MSC_FN_MPI_Fetch_and_op && c->func != MSC_FN_MPI_Compare_and_swap)
        buf_ok(c, a->sbuf, (m & MSC_ROLE_SCOUNT) ? a->scount : a->count, (m & MSC_ROLE_STYPE) ? a->stype : a->datatype,
               (m & MSC_ROLE_STYPE) ? st : dt, MSC_ROLE_SBUF);
    if ((m & MSC_ROLE_RBUF) && (m & MSC_ROLE_COUNT))
        buf_ok(c, a->rbuf, a->count, a->datatype, dt, MSC_ROLE_RBUF);
    if ((m & MSC_ROLE_TRANK) && a->trank != MPI_PROC_NULL) {
        slot *s = tbl_find(&wins, (uint64_t)msc_w_MPI_Win(a->win));
        int n = s ? (int)atomic_load(&s->v[0]) : 0;
        if (n > 0 && (a->trank < 0 || a->trank >= n))
            finding_role(c, MSC_CHECK_RANK_OUT_OF_RANGE, MSC_ROLE_TRANK, a->trank, n);
        /* An access with no epoch ever opened on the window is the analyzer's call-order finding, and MPI fails it
         * (MPI_ERR_RMA_SYNC; the default error handler ends the job at once, before the sender's next batch):
         * send this call's ENTER before forwarding, as for a finding. */
        if (s && (m & MSC_ROLE_TDISP) && !atomic_load(&s->v[1]) && atomic_load(&s->v[2]) <= 0) found = 1;
        if (s && (m & MSC_ROLE_TDISP) && (m & MSC_ROLE_TCOUNT) && win_out_of_range(s, a, tt)) found = 1;
    }
    /* Fetch_and_op and Compare_and_swap have one datatype for origin and target. */
    if (m & MSC_ROLE_OP) rma_op_ok(c, a, (m & MSC_ROLE_TTYPE) ? tt : 0);
    flush_findings();
}
