/* libmpiscope-mcrt.so: the runtime of programs built with `mpiscope cc/cxx/fc` (see msc_mcrt.h).
 *
 * Fast path of every instrumented load and store: one relaxed load of the bounding range of what is owned and
 * two compares. With nothing owned the range is empty (lo = UINTPTR_MAX, hi = 0), so the same two compares
 * fail; there is no separate "anything owned?" test. Only an access inside the bounding range takes the slow
 * path: a binary search in a snapshot of the intervals sorted by start, published under a sequence lock (the
 * shim writes under a mutex, any thread reads without one and retries if a write raced it).
 *
 * The hooks are gcc's -fsanitize=thread ABI (the same names libtsan exports). Atomics are performed as asked,
 * with the memory order given; function entry/exit and the synchronization annotations are no-ops: this
 * runtime keeps no shadow memory and no happens-before. memcpy, memset and memmove calls of the instrumented
 * objects reach it through the linker's --wrap (the wrapper adds it at link time), so a program's own copies
 * into an owned buffer are seen, while MPI's copies (not instrumented, not wrapped) are not. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "msc_mcrt.h"

#define EXPORT __attribute__((visibility("default")))
#define LIKELY(x) __builtin_expect(!!(x), 1)
#define UNLIKELY(x) __builtin_expect(!!(x), 0)

/* Pending operations a rank owns at once; beyond, an operation is not followed (msc_mcrt_add returns -1). */
#define MC_MAX 65536
/* Hits collected by one access before they are handed to the shim (one access rarely meets more). */
#define MC_HITS 8

typedef struct {
    uintptr_t lo, hi;
    uint64_t token;
    int modes;
} mc_iv;

/* Slots by handle (writer side only). */
static mc_iv slots[MC_MAX];
static int slot_used[MC_MAX];
static int slot_top;
/* Free handles below slot_top, as a stack: adding and removing are O(1) before the one republish of a batch. */
static int free_stack[MC_MAX];
static int free_n;
static pthread_mutex_t mc_lock = PTHREAD_MUTEX_INITIALIZER;
static int batching, batch_dirty;

/* The readers' snapshot: intervals sorted by lo; maxhi[i] is the largest hi of entries 0..i, so a search can
 * stop walking left as soon as nothing further left reaches the access. */
static mc_iv snap[MC_MAX];
static uintptr_t snap_maxhi[MC_MAX];
static _Atomic int snap_n;
static _Atomic unsigned snap_seq;
static _Atomic uintptr_t bound_lo = UINTPTR_MAX, bound_hi = 0;
static _Atomic(msc_mcrt_hit_fn) hit_fn;

EXPORT int msc_mcrt_version(void) { return MSC_MCRT_VERSION; }
EXPORT void msc_mcrt_set_hit(msc_mcrt_hit_fn fn) { atomic_store(&hit_fn, fn); }
EXPORT int msc_mcrt_live(void) { return atomic_load_explicit(&snap_n, memory_order_relaxed); }

static int by_lo(const void *a, const void *b)
{
    const mc_iv *x = a, *y = b;
    return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* Rebuilds the snapshot from the slots; called with mc_lock held. */
static void republish(void)
{
    static mc_iv tmp[MC_MAX];
    int n = 0;
    uintptr_t lo = UINTPTR_MAX, hi = 0;
    for (int i = 0; i < slot_top; i++) {
        if (!slot_used[i]) continue;
        tmp[n++] = slots[i];
        if (slots[i].lo < lo) lo = slots[i].lo;
        if (slots[i].hi > hi) hi = slots[i].hi;
    }
    qsort(tmp, (size_t)n, sizeof tmp[0], by_lo);
    atomic_fetch_add_explicit(&snap_seq, 1, memory_order_acq_rel); /* odd: a write is under way */
    atomic_thread_fence(memory_order_release);
    uintptr_t m = 0;
    for (int i = 0; i < n; i++) {
        snap[i] = tmp[i];
        if (tmp[i].hi > m) m = tmp[i].hi;
        snap_maxhi[i] = m;
    }
    atomic_store_explicit(&snap_n, n, memory_order_relaxed);
    /* The bounds are what the fast path reads: empty while nothing is owned. */
    atomic_store_explicit(&bound_lo, n ? lo : UINTPTR_MAX, memory_order_relaxed);
    atomic_store_explicit(&bound_hi, n ? hi : 0, memory_order_relaxed);
    atomic_fetch_add_explicit(&snap_seq, 1, memory_order_release);
}

EXPORT int msc_mcrt_add(uintptr_t lo, uintptr_t hi, int modes, uint64_t token)
{
    if (hi <= lo || !modes) return -1;
    pthread_mutex_lock(&mc_lock);
    int h = -1;
    while (free_n > 0 && h < 0) {
        int f = free_stack[--free_n];
        if (f < slot_top && !slot_used[f]) h = f; /* entries above a lowered slot_top are stale */
    }
    if (h < 0 && slot_top < MC_MAX) h = slot_top++;
    if (h >= 0) {
        slots[h] = (mc_iv){ lo, hi, token, modes };
        slot_used[h] = 1;
        if (batching) batch_dirty = 1;
        else republish();
    }
    pthread_mutex_unlock(&mc_lock);
    return h;
}

EXPORT void msc_mcrt_remove(int h)
{
    if (h < 0 || h >= MC_MAX) return;
    pthread_mutex_lock(&mc_lock);
    if (slot_used[h]) {
        slot_used[h] = 0;
        if (free_n < MC_MAX) free_stack[free_n++] = h;
        while (slot_top > 0 && !slot_used[slot_top - 1]) slot_top--;
        if (batching) batch_dirty = 1;
        else republish();
    }
    pthread_mutex_unlock(&mc_lock);
}

EXPORT void msc_mcrt_batch(int on)
{
    pthread_mutex_lock(&mc_lock);
    batching = on;
    if (!on && batch_dirty) republish();
    if (!on) batch_dirty = 0;
    pthread_mutex_unlock(&mc_lock);
}

/* Gaps between owned intervals that a thread's accesses recently fell into, valid for one snapshot (seq): an
 * access inside one touches nothing owned. A stencil sweeping rows between the blocks of a strided receive
 * (a matrix column) reads three rows in turn, a few KiB apart: four entries, chosen by the access's 4 KiB page. */
#define GAPS 4
static __thread struct {
    uintptr_t lo, hi;
    unsigned seq;
} gaps[GAPS] __attribute__((tls_model("initial-exec")));

/* The access met the bounding range: find the intervals it touches, then report each hit. */
static __attribute__((noinline)) void mc_slow(uintptr_t a, size_t size, int write, void *pc)
{
    uintptr_t end = a + size;
    unsigned g = (unsigned)(a >> 12) & (GAPS - 1);
    if (gaps[g].lo <= a && end <= gaps[g].hi &&
        gaps[g].seq == atomic_load_explicit(&snap_seq, memory_order_acquire))
        return;
    int mode = (write & 1) ? MSC_MC_WRITE : MSC_MC_READ;
    mc_iv hits[MC_HITS];
    int nh, touched;
    uintptr_t gap_lo, gap_hi;
    unsigned seq;
    do {
        nh = 0, touched = 0;
        seq = atomic_load_explicit(&snap_seq, memory_order_acquire);
        if (seq & 1) continue;
        int n = atomic_load_explicit(&snap_n, memory_order_relaxed);
        if (n > MC_MAX) n = MC_MAX;
        /* The last interval that starts before the access ends. */
        int lo = 0, hi = n;
        while (lo < hi) {
            int mid = (lo + hi) / 2;
            if (snap[mid].lo < end) lo = mid + 1;
            else hi = mid;
        }
        for (int i = lo - 1; i >= 0 && snap_maxhi[i] > a; i--) {
            if (snap[i].hi <= a) continue;
            touched = 1;
            if ((snap[i].modes & mode) && nh < MC_HITS) hits[nh++] = snap[i];
        }
        /* Nothing starting before the access's end reaches it: the gap runs from the farthest end among them to
         * the next start. */
        gap_lo = lo > 0 ? snap_maxhi[lo - 1] : 0;
        gap_hi = lo < n ? snap[lo].lo : UINTPTR_MAX;
        atomic_thread_fence(memory_order_acquire);
    } while ((seq & 1) || atomic_load_explicit(&snap_seq, memory_order_relaxed) != seq);
    if (!touched) {
        gaps[g].lo = gap_lo, gaps[g].hi = gap_hi, gaps[g].seq = seq;
        return;
    }
    msc_mcrt_hit_fn fn = atomic_load_explicit(&hit_fn, memory_order_acquire);
    if (!fn) return;
    for (int i = 0; i < nh; i++) fn(a, size, write, pc, hits[i].token);
}

static inline __attribute__((always_inline)) void mc_access(const void *p, size_t size, int write, void *pc)
{
    uintptr_t a = (uintptr_t)p;
    if (LIKELY(a >= atomic_load_explicit(&bound_hi, memory_order_relaxed) ||
               a + size <= atomic_load_explicit(&bound_lo, memory_order_relaxed)))
        return;
    mc_slow(a, size, write, pc);
}

#define RA __builtin_return_address(0)
#define HOOK(N)                                                                                                \
    EXPORT void __tsan_read##N(void *p) { mc_access(p, N, 0, RA); }                                            \
    EXPORT void __tsan_write##N(void *p) { mc_access(p, N, 1, RA); }                                           \
    EXPORT void __tsan_unaligned_read##N(void *p) { mc_access(p, N, 0, RA); }                                  \
    EXPORT void __tsan_unaligned_write##N(void *p) { mc_access(p, N, 1, RA); }                                 \
    EXPORT void __tsan_volatile_read##N(void *p) { mc_access(p, N, 0, RA); }                                   \
    EXPORT void __tsan_volatile_write##N(void *p) { mc_access(p, N, 1, RA); }                                  \
    EXPORT void __tsan_unaligned_volatile_read##N(void *p) { mc_access(p, N, 0, RA); }                         \
    EXPORT void __tsan_unaligned_volatile_write##N(void *p) { mc_access(p, N, 1, RA); }                        \
    EXPORT void __tsan_read##N##_pc(void *p, void *pc) { mc_access(p, N, 0, pc); }                             \
    EXPORT void __tsan_write##N##_pc(void *p, void *pc) { mc_access(p, N, 1, pc); }
HOOK(1)
HOOK(2)
HOOK(4)
HOOK(8)
HOOK(16)

EXPORT void __tsan_read_range(void *p, size_t n) { mc_access(p, n, 0, RA); }
EXPORT void __tsan_write_range(void *p, size_t n) { mc_access(p, n, 1, RA); }
EXPORT void __tsan_read_range_pc(void *p, size_t n, void *pc) { mc_access(p, n, 0, pc); }
EXPORT void __tsan_write_range_pc(void *p, size_t n, void *pc) { mc_access(p, n, 1, pc); }
/* C++ virtual table pointer updates and reads are stores and loads of a pointer. */
EXPORT void __tsan_vptr_update(void **p, void *v) { (void)v, mc_access(p, sizeof *p, 1, RA); }
EXPORT void __tsan_vptr_read(void **p) { mc_access(p, sizeof *p, 0, RA); }

/* No shadow state: entry, exit and annotations have nothing to do. */
EXPORT void __tsan_init(void) {}
EXPORT void __tsan_func_entry(void *pc) { (void)pc; }
EXPORT void __tsan_func_exit(void) {}
EXPORT void __tsan_ignore_thread_begin(void) {}
EXPORT void __tsan_ignore_thread_end(void) {}
EXPORT void __tsan_acquire(void *a) { (void)a; }
EXPORT void __tsan_release(void *a) { (void)a; }
EXPORT void __tsan_mutex_create(void *m, unsigned f) { (void)m, (void)f; }
EXPORT void __tsan_mutex_destroy(void *m, unsigned f) { (void)m, (void)f; }
EXPORT void __tsan_mutex_pre_lock(void *m, unsigned f) { (void)m, (void)f; }
EXPORT void __tsan_mutex_post_lock(void *m, unsigned f, int r) { (void)m, (void)f, (void)r; }
EXPORT int __tsan_mutex_pre_unlock(void *m, unsigned f) { return (void)m, (void)f, 0; }
EXPORT void __tsan_mutex_post_unlock(void *m, unsigned f) { (void)m, (void)f; }

/* Atomics: tsan's memory-order numbering is the C11 one, which is gcc's __ATOMIC_* numbering. An atomic
 * access is an access too (a store into a pending receive buffer is reported like any other), marked
 * MSC_MC_HIT_ATOMIC: in window memory, two atomics never race, and a rank may synchronize through them (a flag
 * in shared memory it polls). */
#define ATOMICS(N, T)                                                                                          \
    EXPORT T __tsan_atomic##N##_load(const volatile T *p, int mo)                                              \
    {                                                                                                          \
        mc_access((const void *)p, sizeof(T), MSC_MC_HIT_ATOMIC, RA);                                          \
        return __atomic_load_n(p, mo);                                                                         \
    }                                                                                                          \
    EXPORT void __tsan_atomic##N##_store(volatile T *p, T v, int mo)                                           \
    {                                                                                                          \
        mc_access((const void *)p, sizeof(T), 1 | MSC_MC_HIT_ATOMIC, RA);                                      \
        __atomic_store_n(p, v, mo);                                                                            \
    }                                                                                                          \
    EXPORT T __tsan_atomic##N##_exchange(volatile T *p, T v, int mo)                                           \
    {                                                                                                          \
        mc_access((const void *)p, sizeof(T), 1 | MSC_MC_HIT_ATOMIC, RA);                                      \
        return __atomic_exchange_n(p, v, mo);                                                                  \
    }                                                                                                          \
    EXPORT T __tsan_atomic##N##_fetch_add(volatile T *p, T v, int mo)                                          \
    {                                                                                                          \
        mc_access((const void *)p, sizeof(T), 1 | MSC_MC_HIT_ATOMIC, RA);                                      \
        return __atomic_fetch_add(p, v, mo);                                                                   \
    }                                                                                                          \
    EXPORT T __tsan_atomic##N##_fetch_sub(volatile T *p, T v, int mo)                                          \
    {                                                                                                          \
        mc_access((const void *)p, sizeof(T), 1 | MSC_MC_HIT_ATOMIC, RA);                                      \
        return __atomic_fetch_sub(p, v, mo);                                                                   \
    }                                                                                                          \
    EXPORT T __tsan_atomic##N##_fetch_and(volatile T *p, T v, int mo)                                          \
    {                                                                                                          \
        mc_access((const void *)p, sizeof(T), 1 | MSC_MC_HIT_ATOMIC, RA);                                      \
        return __atomic_fetch_and(p, v, mo);                                                                   \
    }                                                                                                          \
    EXPORT T __tsan_atomic##N##_fetch_or(volatile T *p, T v, int mo)                                           \
    {                                                                                                          \
        mc_access((const void *)p, sizeof(T), 1 | MSC_MC_HIT_ATOMIC, RA);                                      \
        return __atomic_fetch_or(p, v, mo);                                                                    \
    }                                                                                                          \
    EXPORT T __tsan_atomic##N##_fetch_xor(volatile T *p, T v, int mo)                                          \
    {                                                                                                          \
        mc_access((const void *)p, sizeof(T), 1 | MSC_MC_HIT_ATOMIC, RA);                                      \
        return __atomic_fetch_xor(p, v, mo);                                                                   \
    }                                                                                                          \
    EXPORT T __tsan_atomic##N##_fetch_nand(volatile T *p, T v, int mo)                                         \
    {                                                                                                          \
        mc_access((const void *)p, sizeof(T), 1 | MSC_MC_HIT_ATOMIC, RA);                                      \
        return __atomic_fetch_nand(p, v, mo);                                                                  \
    }                                                                                                          \
    EXPORT int __tsan_atomic##N##_compare_exchange_strong(volatile T *p, T *e, T v, int mo, int fmo)           \
    {                                                                                                          \
        mc_access((const void *)p, sizeof(T), 1 | MSC_MC_HIT_ATOMIC, RA);                                      \
        return __atomic_compare_exchange_n(p, e, v, 0, mo, fmo);                                               \
    }                                                                                                          \
    EXPORT int __tsan_atomic##N##_compare_exchange_weak(volatile T *p, T *e, T v, int mo, int fmo)             \
    {                                                                                                          \
        mc_access((const void *)p, sizeof(T), 1 | MSC_MC_HIT_ATOMIC, RA);                                      \
        return __atomic_compare_exchange_n(p, e, v, 1, mo, fmo);                                               \
    }                                                                                                          \
    EXPORT T __tsan_atomic##N##_compare_exchange_val(volatile T *p, T e, T v, int mo, int fmo)                 \
    {                                                                                                          \
        mc_access((const void *)p, sizeof(T), 1 | MSC_MC_HIT_ATOMIC, RA);                                      \
        __atomic_compare_exchange_n(p, &e, v, 0, mo, fmo);                                                     \
        return e;                                                                                              \
    }
ATOMICS(8, uint8_t)
ATOMICS(16, uint16_t)
ATOMICS(32, uint32_t)
ATOMICS(64, uint64_t)
EXPORT void __tsan_atomic_thread_fence(int mo) { __atomic_thread_fence(mo); }
EXPORT void __tsan_atomic_signal_fence(int mo) { __atomic_signal_fence(mo); }

/* The instrumented objects' memcpy/memset/memmove (linked with --wrap=NAME by the compiler wrapper). */
EXPORT void *__wrap_memcpy(void *d, const void *s, size_t n)
{
    if (n) mc_access(s, n, 0, RA), mc_access(d, n, 1, RA);
    return memcpy(d, s, n);
}
EXPORT void *__wrap_memmove(void *d, const void *s, size_t n)
{
    if (n) mc_access(s, n, 0, RA), mc_access(d, n, 1, RA);
    return memmove(d, s, n);
}
EXPORT void *__wrap_memset(void *d, int c, size_t n)
{
    if (n) mc_access(d, n, 1, RA);
    return memset(d, c, n);
}
