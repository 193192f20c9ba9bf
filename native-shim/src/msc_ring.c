/* The per-rank ring of 64-byte records.
 *
 * Many producers (application threads), one consumer (whoever holds the sender's lock). A producer reserves
 * all the records of one call at once with a CAS on head, so a call's head record and its EXT records are
 * contiguous even under MPI_THREAD_MULTIPLE. Each slot has a commit marker (position + 1) stored with
 * release order after the record is written; the consumer takes records in order and stops at the first
 * slot not committed yet. A call's slots are committed last-to-first, so a consumer that sees a head record
 * also sees all its EXT records and never has to split a call between two frames. */
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "msc_shim.h"

/* Producers write head, the consumer writes tail: each on its own cache line, so that they do not bounce
 * one line between the cores on every record (measured: it tripled the cost of a recorded call). */
typedef struct msc_ring {
    msc_record *buf;
    _Atomic uint64_t *mark;
    uint64_t cap, mask;
    _Alignas(64) _Atomic uint64_t head; /* next position to reserve */
    _Alignas(64) _Atomic uint64_t tail; /* next position the consumer takes */
    _Alignas(64) _Atomic uint64_t dropped;
} msc_ring;

static msc_ring ring;
/* A producer's last view of tail. Tail only grows, so a stale value errs on the side of "full" and is then
 * refreshed: producers read the consumer's line only when the ring looks full. */
static __thread uint64_t seen_tail __attribute__((tls_model("initial-exec")));
_Atomic int msc_connected;

int msc_ring_init(unsigned records)
{
    uint64_t cap = 1024;
    while (cap < records) cap <<= 1;
    /* mmap rather than malloc: never returned, so that late writers stay safe. */
    /* Populated up front: a page fault per 64 records on the first lap showed up in the per-call cost. */
    int flags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE;
    void *b = mmap(NULL, cap * sizeof(msc_record), PROT_READ | PROT_WRITE, flags, -1, 0);
    void *m = mmap(NULL, cap * sizeof(uint64_t), PROT_READ | PROT_WRITE, flags, -1, 0);
    if (b == MAP_FAILED || m == MAP_FAILED) return 0;
    ring.buf = b;
    ring.mark = m;
    ring.cap = cap;
    ring.mask = cap - 1;
    return 1;
}

uint64_t msc_ring_head(void) { return atomic_load_explicit(&ring.head, memory_order_acquire); }
uint64_t msc_ring_tail(void) { return atomic_load_explicit(&ring.tail, memory_order_acquire); }
uint64_t msc_ring_dropped(void) { return atomic_load_explicit(&ring.dropped, memory_order_relaxed); }

/* Slow path when the ring is full: wait for the sender while it is connected (bounded by one second), else
 * give up. Returns 1 when there is room now. */
static int ring_wait_room(uint64_t head, uint64_t n)
{
    if (!atomic_load_explicit(&msc_connected, memory_order_relaxed) || n > ring.cap) return 0;
    uint64_t deadline = msc_now() + 1000000000u;
    msc_sender_wake();
    while (head + n - atomic_load_explicit(&ring.tail, memory_order_acquire) > ring.cap) {
        if (!atomic_load_explicit(&msc_connected, memory_order_relaxed) || msc_now() > deadline) return 0;
        sched_yield();
    }
    return 1;
}

/* Reserves n consecutive positions; returns the first, or UINT64_MAX when dropped. */
static uint64_t ring_reserve(uint64_t n)
{
    uint64_t head = atomic_load_explicit(&ring.head, memory_order_relaxed);
    for (;;) {
        if (MSC_UNLIKELY(head + n - seen_tail > ring.cap))
            seen_tail = atomic_load_explicit(&ring.tail, memory_order_acquire);
        uint64_t tail = seen_tail;
        if (MSC_UNLIKELY(head + n - tail > ring.cap)) {
            if (!ring_wait_room(head, n)) {
                atomic_fetch_add_explicit(&ring.dropped, n, memory_order_relaxed);
                return UINT64_MAX;
            }
            head = atomic_load_explicit(&ring.head, memory_order_relaxed);
            continue;
        }
        if (atomic_compare_exchange_weak_explicit(&ring.head, &head, head + n, memory_order_acq_rel,
                                                  memory_order_relaxed))
            return head;
    }
}

static int64_t arr_elem(const msc_arr *a, int i)
{
    switch (a->kind & 0xf) {
    case MSC_ARR_REQUEST: return msc_w_MPI_Request(((const MPI_Request *)a->ptr)[i]);
    case MSC_ARR_DATATYPE: return msc_w_MPI_Datatype(((const MPI_Datatype *)a->ptr)[i]);
    case MSC_ARR_I64: return ((const int64_t *)a->ptr)[i];
    default: return ((const int *)a->ptr)[i];
    }
}

/* Writes word i of a call (0-based over head then EXT words) into the reserved records at pos. */
static inline void put_word(uint64_t pos, uint64_t i, int64_t v)
{
    if (i < MSC_HEAD_WORDS) {
        ring.buf[pos & ring.mask].head.w[i] = v;
    } else {
        uint64_t k = i - MSC_HEAD_WORDS;
        ring.buf[(pos + 1 + k / MSC_EXT_WORDS) & ring.mask].ext.w[k % MSC_EXT_WORDS] = v;
    }
}

void msc_emit(int kind, int flags, int func, uint32_t seq, uint64_t time, uint64_t site, const int64_t *w, int nw,
              const msc_arr *arr, int narr)
{
    uint64_t total = (uint64_t)nw;
    for (int j = 0; j < narr; j++) {
        int raw = arr[j].kind & MSC_ARR_RAW;
        int n = arr[j].n;
        total += (raw ? 0 : 1) + (uint64_t)n;
    }
    uint64_t nrec = 1 + (total > MSC_HEAD_WORDS ? (total - MSC_HEAD_WORDS + MSC_EXT_WORDS - 1) / MSC_EXT_WORDS : 0);
    uint64_t pos = ring_reserve(nrec);
    if (pos == UINT64_MAX) return;

    msc_record_head *h = &ring.buf[pos & ring.mask].head;
    h->kind = (uint8_t)kind;
    h->flags = (uint8_t)flags;
    h->func = (uint16_t)func;
    h->seq = seq;
    h->time = time;
    h->site = site;
    for (uint64_t r = 1; r < nrec; r++) {
        msc_record_ext *e = &ring.buf[(pos + r) & ring.mask].ext;
        e->kind = MSC_KIND_EXT;
        e->flags = 0;
        e->func = (uint16_t)func;
        e->seq = seq;
    }
    uint64_t i = 0;
    for (int j = 0; j < nw; j++) put_word(pos, i++, w[j]);
    for (int j = 0; j < narr; j++) {
        const msc_arr *a = &arr[j];
        if (a->kind & MSC_ARR_RAW) {
            for (int k = 0; k < a->n; k++) put_word(pos, i++, arr_elem(a, k));
        } else {
            put_word(pos, i++, a->n);
            for (int k = 0; k < a->n; k++) put_word(pos, i++, arr_elem(a, k));
        }
    }
    /* Zero the unused tail words so that no stale data leaves the process. */
    for (; i < MSC_HEAD_WORDS + (nrec - 1) * MSC_EXT_WORDS; i++) put_word(pos, i, 0);
    for (uint64_t r = nrec; r-- > 0;)
        atomic_store_explicit(&ring.mark[(pos + r) & ring.mask], pos + r + 1, memory_order_release);
}

int msc_ring_take(msc_record *out, int max, int cap)
{
    uint64_t tail = atomic_load_explicit(&ring.tail, memory_order_relaxed);
    int n = 0;
    for (;;) {
        uint64_t idx = tail & ring.mask;
        if (atomic_load_explicit(&ring.mark[idx], memory_order_acquire) != tail + 1) break;
        /* Never end a batch in front of an EXT record: a call's records travel in one frame. */
        if (n >= max && (ring.buf[idx].head.kind != MSC_KIND_EXT || n >= cap)) break;
        out[n++] = ring.buf[idx];
        tail++;
    }
    if (n) atomic_store_explicit(&ring.tail, tail, memory_order_release);
    return n;
}
