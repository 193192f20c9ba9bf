/* The per-rank ring of 64-byte records.
 *
 * Many producers (application threads), one consumer (whoever holds the sender's lock). A producer reserves
 * all the records of one call at once with a CAS on head, so a call's head record and its EXT records are
 * contiguous even under MPI_THREAD_MULTIPLE. Each slot has a commit marker (position + 1) stored with
 * release order after the record is written; the consumer takes records in order and stops at the first
 * slot not committed yet. A call's slots are committed last-to-first, so a consumer that sees a head record
 * also sees all its EXT records and never has to split a call between two frames. */
#include <linux/futex.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "msc_shim.h"

/* Producers write head, the consumer writes tail: each on its own cache line, so that they do not bounce
 * one line between the cores on every record (measured: it tripled the cost of a recorded call). */
typedef struct msc_ring {
    msc_record *buf;
    _Atomic uint64_t *mark;
    uint64_t cap, mask;
    _Alignas(64) _Atomic uint64_t head; /* next position to reserve */
    /* The sender's mark (msc_ring_arm): the producer whose reservation reaches it wakes the sender, once. On head's
     * line, which a producer already holds for its CAS: one compare per reservation, no extra cache miss. Written
     * by the sender at most once per wake-up. UINT64_MAX: disarmed. */
    _Atomic uint64_t nudge_at;
    _Alignas(64) _Atomic uint64_t tail; /* next position the consumer takes */
    _Alignas(64) _Atomic uint64_t dropped;
    /* A full ring: producers sleep on room (a futex word bumped by the consumer whenever it frees room while
     * waiters > 0). Both sit on the dropped line, which is only touched when the ring is full. */
    _Atomic uint32_t room;
    _Atomic uint32_t waiters;
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
    atomic_store_explicit(&ring.nudge_at, UINT64_MAX, memory_order_relaxed);
    return 1;
}

uint64_t msc_ring_head(void) { return atomic_load_explicit(&ring.head, memory_order_acquire); }
uint64_t msc_ring_tail(void) { return atomic_load_explicit(&ring.tail, memory_order_acquire); }
uint64_t msc_ring_dropped(void) { return atomic_load_explicit(&ring.dropped, memory_order_relaxed); }

static long futex(_Atomic uint32_t *word, int op, uint32_t val, const struct timespec *timeout)
{
    return syscall(SYS_futex, (uint32_t *)word, op, val, timeout, NULL, 0);
}

/* How long a full ring may go without the consumer taking anything before a producer gives up and drops:
 * the analyzer is alive but takes nothing (stopped, wedged, a peer that stopped reading). A slow analyzer
 * that still takes records is waited for as long as it takes; an analyzer that is gone closes the
 * connection, which wakes every waiter at once (msc_ring_wake_all) and turns the shim into a pass-through. */
static uint64_t stall_ns(void)
{
    static uint64_t ns;
    if (!ns) {
        const char *e = getenv("MPISCOPE_RING_STALL_MS");
        long ms = e ? atol(e) : 0;
        ns = (uint64_t)(ms > 0 ? ms : 60000) * 1000000u;
    }
    return ns;
}

/* Slow path when the ring is full: sleep until the consumer frees room (no records lost), and give up only
 * when the connection is gone or the consumer made no progress for stall_ns(). Returns 1 when there is room.
 * A futex rather than a sched_yield loop: on a machine where the ranks, the senders and the analyzer share
 * few cores, a yielding producer took CPU time from the very analyzer it waited for. */
/* tail + 1 when a producer gave up on a consumer that took nothing: until tail moves again, the others drop at
 * once instead of each waiting the whole stall bound. */
static _Atomic uint64_t stalled_at;
/* How often producers slept on a full ring and for how long in all (MPISCOPE_RING_STATS, msc_sender.c): counted
 * on this slow path only. */
static _Atomic uint64_t room_waits, room_wait_ns;

void msc_ring_stats(uint64_t *waits, uint64_t *wait_ns)
{
    *waits = atomic_load_explicit(&room_waits, memory_order_relaxed);
    *wait_ns = atomic_load_explicit(&room_wait_ns, memory_order_relaxed);
}

static int ring_wait_room(uint64_t head, uint64_t n)
{
    if (!atomic_load_explicit(&msc_connected, memory_order_relaxed) || n > ring.cap) return 0;
    uint64_t tail = atomic_load_explicit(&ring.tail, memory_order_acquire);
    if (atomic_load_explicit(&stalled_at, memory_order_relaxed) == tail + 1) return 0;
    uint64_t progress = msc_now(), began = progress;
    atomic_fetch_add_explicit(&ring.waiters, 1, memory_order_seq_cst);
    int ok = 1;
    while (head + n - tail > ring.cap) {
        /* Announce the wait, then look again: the consumer bumps room after moving tail and before reading
         * waiters, so either it sees this waiter or this thread sees the new tail (both seq_cst). */
        uint32_t seen = atomic_load_explicit(&ring.room, memory_order_seq_cst);
        uint64_t now_tail = atomic_load_explicit(&ring.tail, memory_order_seq_cst);
        if (head + n - now_tail <= ring.cap) break;
        if (!atomic_load_explicit(&msc_connected, memory_order_relaxed)) {
            ok = 0;
            break;
        }
        msc_sender_wake();
        /* Bounded sleeps: a lost wake-up or a connection that drops without a wake costs at most 100 ms. */
        struct timespec ts = { 0, 100000000 };
        futex(&ring.room, FUTEX_WAIT_PRIVATE, seen, &ts);
        uint64_t t = atomic_load_explicit(&ring.tail, memory_order_acquire);
        uint64_t now = msc_now();
        if (t != tail) {
            tail = t;
            progress = now;
        } else if (now - progress > stall_ns()) {
            atomic_store_explicit(&stalled_at, tail + 1, memory_order_relaxed);
            ok = 0;
            break;
        }
    }
    atomic_fetch_sub_explicit(&ring.waiters, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&room_waits, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&room_wait_ns, msc_now() - began, memory_order_relaxed);
    return ok;
}

/* Consumer side, after tail moved: wakes the producers that sleep on a full ring. One relaxed load when
 * nobody waits. */
static void wake_waiters(void)
{
    if (MSC_UNLIKELY(atomic_load_explicit(&ring.waiters, memory_order_seq_cst) != 0)) {
        atomic_fetch_add_explicit(&ring.room, 1, memory_order_seq_cst);
        futex(&ring.room, FUTEX_WAKE_PRIVATE, 0x7fffffff, NULL);
    }
}

void msc_ring_wake_all(void)
{
    atomic_fetch_add_explicit(&ring.room, 1, memory_order_seq_cst);
    futex(&ring.room, FUTEX_WAKE_PRIVATE, 0x7fffffff, NULL);
}

void msc_ring_arm(uint64_t at) { atomic_store_explicit(&ring.nudge_at, at, memory_order_seq_cst); }

/* A reservation reached the sender's mark: the first producer to see it disarms it and wakes the sender (one
 * eventfd write per mark, never per call). Before the records are written: the sender takes them at its next
 * look, or finds them committed by then. */
static __attribute__((noinline)) void ring_nudge(void)
{
    if (atomic_exchange_explicit(&ring.nudge_at, UINT64_MAX, memory_order_relaxed) != UINT64_MAX) msc_sender_nudge();
}

/* Reserves n consecutive positions; returns the first, or UINT64_MAX when dropped. Out of line: the ring
 * looks full, the reservation reaches the sender's mark, or the CAS lost a race with another thread. */
static __attribute__((noinline)) uint64_t ring_reserve_slow(uint64_t n)
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
                                                  memory_order_relaxed)) {
            if (head + n > atomic_load_explicit(&ring.nudge_at, memory_order_relaxed)) ring_nudge();
            return head;
        }
    }
}

/* The common case inline: room by the cached tail, short of the sender's mark, and one CAS that wins. */
static inline uint64_t ring_reserve(uint64_t n)
{
    uint64_t head = atomic_load_explicit(&ring.head, memory_order_relaxed);
    if (MSC_LIKELY(head + n - seen_tail <= ring.cap) &&
        MSC_LIKELY(head + n <= atomic_load_explicit(&ring.nudge_at, memory_order_relaxed)) &&
        atomic_compare_exchange_strong_explicit(&ring.head, &head, head + n, memory_order_acq_rel,
                                                memory_order_relaxed))
        return head;
    return ring_reserve_slow(n);
}

/* A call's record's first 8 bytes from its id word (msc_call.idw: func and seq in place). */
static inline uint64_t call_word(int kind, int flags, const msc_call *c)
{
    return c->idw | (uint64_t)(uint8_t)kind | (uint64_t)(uint8_t)flags << 8;
}

/* The first 8 bytes of a record: kind, flags, func, seq (little-endian), as one store. */
static inline uint64_t head_word(int kind, int flags, int func, uint32_t seq)
{
    return (uint64_t)(uint8_t)kind | (uint64_t)(uint8_t)flags << 8 | (uint64_t)(uint16_t)func << 16 |
           (uint64_t)seq << 32;
}

/* Two signed 32-bit values in one word, the first in the low half (records.json's packed forms). */
static inline int64_t pack2(int64_t lo, int64_t hi)
{
    return (int64_t)((uint64_t)(uint32_t)(int32_t)lo | (uint64_t)(uint32_t)(int32_t)hi << 32);
}

/* A COMPLETE's 6 words [request, source, tag, bytes, error, cancelled] in the packed one-record form (flags
 * MSC_COMPLETE_PACKED): source, tag, error and cancelled are C ints, so they always fit. The fifth word is 0. */
static inline void pack_complete(int64_t *d, const int64_t *w)
{
    d[0] = w[0];
    d[1] = pack2(w[1], w[2]);
    d[2] = w[3];
    d[3] = pack2(w[4], w[5]);
    d[4] = 0;
}

/* Commits records [pos, pos + nrec): last to first, so that a consumer that sees the head sees the rest. */
static inline void commit(uint64_t pos, uint64_t nrec)
{
    for (uint64_t r = nrec; r-- > 0;)
        atomic_store_explicit(&ring.mark[(pos + r) & ring.mask], pos + r + 1, memory_order_release);
}

/* The common case, one record with at most MSC_HEAD_WORDS words, written straight into its slot: one
 * reservation, plain stores, one release store. */
static inline void emit_one(uint64_t hw, uint64_t time, uint64_t site, const int64_t *w, int nw)
{
    uint64_t pos = ring_reserve(1);
    if (MSC_UNLIKELY(pos == UINT64_MAX)) return;
    msc_record_head *r = &ring.buf[pos & ring.mask].head;
    __builtin_memcpy(r, &hw, 8);
    r->time = time;
    r->site = site;
    int64_t *d = r->w;
    /* Words first, then zeros: no stale data leaves the process. */
    switch (nw) {
    case 0: d[0] = 0; /* fall through */
    case 1: d[1] = 0; /* fall through */
    case 2: d[2] = 0; /* fall through */
    case 3: d[3] = 0; /* fall through */
    case 4: d[4] = 0; /* fall through */
    default: break;
    }
    switch (nw) {
    case 5: d[4] = w[4]; /* fall through */
    case 4: d[3] = w[3]; /* fall through */
    case 3: d[2] = w[2]; /* fall through */
    case 2: d[1] = w[1]; /* fall through */
    case 1: d[0] = w[0]; /* fall through */
    default: break;
    }
    commit(pos, 1);
}

/* Writes words one after the other across the head record and its EXT records. */
typedef struct cursor {
    uint64_t pos, rec;
    int64_t *dst;
    int left;
} cursor;

static inline void put(cursor *k, int64_t v)
{
    if (MSC_UNLIKELY(k->left == 0)) {
        k->rec++;
        k->dst = ring.buf[(k->pos + k->rec) & ring.mask].ext.w;
        k->left = MSC_EXT_WORDS;
    }
    *k->dst++ = v;
    k->left--;
}

/* The n (1..MSC_EXT_WORDS) words of an EXT record, then zeros: straight-line stores through two jump tables
 * instead of a test per word (a per-word `i < n ? w[i] : 0` cost ~20 instructions per EXT record). */
static inline void write_ext_words(int64_t *d, const int64_t *w, int n)
{
    _Static_assert(MSC_EXT_WORDS == 7, "write_ext_words is written for 7 words");
    switch (n) {
    default: d[6] = w[6]; /* fall through */
    case 6: d[5] = w[5]; /* fall through */
    case 5: d[4] = w[4]; /* fall through */
    case 4: d[3] = w[3]; /* fall through */
    case 3: d[2] = w[2]; /* fall through */
    case 2: d[1] = w[1]; /* fall through */
    case 1: d[0] = w[0]; /* fall through */
    case 0: break;
    }
    switch (n) {
    case 0: d[0] = 0; /* fall through */
    case 1: d[1] = 0; /* fall through */
    case 2: d[2] = 0; /* fall through */
    case 3: d[3] = 0; /* fall through */
    case 4: d[4] = 0; /* fall through */
    case 5: d[5] = 0; /* fall through */
    case 6: d[6] = 0; /* fall through */
    default: break;
    }
}

/* Two records, head and one EXT, for up to MSC_HEAD_WORDS + MSC_EXT_WORDS words and no arrays: COMPLETE
 * records and the ENTER of most point-to-point calls. */
static inline void emit_two(uint64_t hw, uint64_t ext_hw, uint64_t time, uint64_t site, const int64_t *w, int nw)
{
    uint64_t pos = ring_reserve(2);
    if (MSC_UNLIKELY(pos == UINT64_MAX)) return;
    msc_record_head *r = &ring.buf[pos & ring.mask].head;
    msc_record_ext *e = &ring.buf[(pos + 1) & ring.mask].ext;
    __builtin_memcpy(r, &hw, 8);
    r->time = time;
    r->site = site;
    __builtin_memcpy(e, &ext_hw, 8);
    for (int i = 0; i < MSC_HEAD_WORDS; i++) r->w[i] = w[i];
    write_ext_words(e->w, w + MSC_HEAD_WORDS, nw - MSC_HEAD_WORDS);
    commit(pos, 2);
}

static __attribute__((noinline)) void emit_many(uint64_t hw, int func, uint32_t seq, uint64_t time, uint64_t site,
                                                const int64_t *w, int nw, const msc_arr *arr, int narr);

void msc_emit(int kind, int flags, int func, uint32_t seq, uint64_t time, uint64_t site, const int64_t *w, int nw,
              const msc_arr *arr, int narr)
{
    if (MSC_UNLIKELY(msc_held_call != NULL)) msc_emit_held();
    if (MSC_UNLIKELY(msc_pending_call != NULL)) msc_emit_pending();
    uint64_t hw = head_word(kind, flags, func, seq);
    if (MSC_LIKELY(narr == 0 && nw <= MSC_HEAD_WORDS))
        emit_one(hw, time, site, w, nw);
    else if (narr == 0 && nw <= MSC_HEAD_WORDS + MSC_EXT_WORDS)
        emit_two(hw, head_word(MSC_KIND_EXT, 0, func, seq), time, site, w, nw);
    else
        emit_many(hw, func, seq, time, site, w, nw, arr, narr);
}

/* Records a call's words and arrays take: a head record, then EXT records. */
static inline uint64_t records_for(int nw, const msc_arr *arr, int narr)
{
    uint64_t total = (uint64_t)nw;
    for (int j = 0; j < narr; j++) total += ((arr[j].kind & MSC_ARR_RAW) ? 0 : 1) + (uint64_t)arr[j].n;
    return 1 + (total > MSC_HEAD_WORDS ? (total - MSC_HEAD_WORDS + MSC_EXT_WORDS - 1) / MSC_EXT_WORDS : 0);
}

/* Writes a head record and its nrec - 1 EXT records at pos (reserved, not committed). */
static void write_records(uint64_t pos, uint64_t nrec, uint64_t hw, int func, uint32_t seq, uint64_t time,
                          uint64_t site, const int64_t *w, int nw, const msc_arr *arr, int narr)
{
    msc_record_head *h = &ring.buf[pos & ring.mask].head;
    __builtin_memcpy(h, &hw, 8);
    h->time = time;
    h->site = site;
    uint64_t ext_hw = head_word(MSC_KIND_EXT, 0, func, seq);
    for (uint64_t r = 1; r < nrec; r++) __builtin_memcpy(&ring.buf[(pos + r) & ring.mask].ext, &ext_hw, 8);
    cursor k = { pos, 0, h->w, MSC_HEAD_WORDS };
    for (int j = 0; j < nw; j++) put(&k, w[j]);
    for (int j = 0; j < narr; j++) {
        const msc_arr *a = &arr[j];
        if (!(a->kind & MSC_ARR_RAW)) put(&k, a->n);
        switch (a->kind & 0xf) {
        case MSC_ARR_REQUEST:
            for (int i = 0; i < a->n; i++) put(&k, msc_w_MPI_Request(((const MPI_Request *)a->ptr)[i]));
            break;
        case MSC_ARR_DATATYPE:
            for (int i = 0; i < a->n; i++) put(&k, msc_w_MPI_Datatype(((const MPI_Datatype *)a->ptr)[i]));
            break;
        case MSC_ARR_I64:
            for (int i = 0; i < a->n; i++) put(&k, ((const int64_t *)a->ptr)[i]);
            break;
        default:
            for (int i = 0; i < a->n; i++) put(&k, ((const int *)a->ptr)[i]);
        }
    }
    /* Zero the unused tail words so that no stale data leaves the process. */
    while (k.left > 0) put(&k, 0);
}

/* A head record and EXT records: reserved together, so that a call's records are contiguous. */
static void emit_many(uint64_t hw, int func, uint32_t seq, uint64_t time, uint64_t site, const int64_t *w, int nw,
                      const msc_arr *arr, int narr)
{
    uint64_t nrec = records_for(nw, arr, narr);
    uint64_t pos = ring_reserve(nrec);
    if (pos == UINT64_MAX) return;
    write_records(pos, nrec, hw, func, seq, time, site, w, nw, arr, narr);
    commit(pos, nrec);
}

/* One head record at slot pos, its MSC_HEAD_WORDS words copied whole (an msc_call's unused ones are zero). */
static inline void write_one(uint64_t pos, uint64_t hw, uint64_t time, uint64_t site, const int64_t *w)
{
    msc_record_head *r = &ring.buf[pos & ring.mask].head;
    __builtin_memcpy(r, &hw, 8);
    r->time = time;
    r->site = site;
    __builtin_memcpy(r->w, w, sizeof r->w);
}

/* A head record and one EXT record for 6..MSC_HEAD_WORDS + MSC_EXT_WORDS words: the head copied whole, the EXT
 * words copied and the rest zeroed. */
static inline void write_two(uint64_t pos, uint64_t hw, uint64_t ext_hw, uint64_t time, uint64_t site,
                             const int64_t *w, int nw)
{
    write_one(pos, hw, time, site, w);
    msc_record_ext *e = &ring.buf[(pos + 1) & ring.mask].ext;
    __builtin_memcpy(e, &ext_hw, 8);
    write_ext_words(e->w, w + MSC_HEAD_WORDS, nw - MSC_HEAD_WORDS);
}

/* Whether a call's EXIT (its xflags, nx words, xarr_n indices) fits a COMPLETE_EXIT record (records.json): at most
 * two words, no indices, flags the merged record has bits for. */
static inline int exit_mergeable(const msc_call *c)
{
    return c->nx <= 2 && c->xarr_n == 0 && (c->xflags & ~MSC_FLAG_TRUE) == 0;
}

/* A COMPLETE's six words w (flags cflags: send, probe) and the call's EXIT as one COMPLETE_EXIT record at pos. */
static inline void write_complete_exit(uint64_t pos, const msc_call *c, const int64_t *w, int cflags, uint64_t time)
{
    int64_t d[MSC_HEAD_WORDS];
    int flags = cflags | (c->xflags & MSC_FLAG_TRUE) | (w[5] ? MSC_COMPLETE_EXIT_CANCELLED : 0);
    d[0] = w[0];
    d[1] = pack2(w[1], w[2]);
    d[2] = w[3];
    d[3] = pack2(w[4], c->x[0]);
    d[4] = c->nx > 1 ? c->x[1] : 0;
    write_one(pos, call_word(MSC_KIND_COMPLETE_EXIT, flags, c), time, c->site, d);
}

/* The packed COMPLETE of a request MPI handed out already complete, at the call's own stamp. */
static inline void write_done(uint64_t pos, const msc_call *c, const int64_t *done)
{
    int64_t cw[MSC_HEAD_WORDS];
    pack_complete(cw, done);
    write_one(pos, call_word(MSC_KIND_COMPLETE, MSC_COMPLETE_PACKED, c), c->time, c->site, cw);
}

/* Calls with arrays, an ENTER of more than one record, or a COMPLETE: out of line, so that the simplest case
 * below needs few saved registers. The COMPLETE of a request MPI handed out already complete (an Isend that
 * completed at once, Open MPI's MPI_PROC_NULL requests, MPICH's builtin ones) and an EXIT of at most two words
 * are one COMPLETE_EXIT record: such a call is its ENTER and that record, like a blocking Send (three records
 * before). */
static __attribute__((noinline)) void emit_pair_more(const msc_call *c, uint64_t ehw, uint64_t xhw)
{
    const int64_t done[6] = { c->done_id, -1, -1, 0, MPI_SUCCESS, 0 };
    uint64_t nc = c->done_id ? 1 : 0;
    int merge = nc && exit_mergeable(c);
    if ((c->narr | c->xarr_n) == 0 && c->nw <= MSC_HEAD_WORDS + MSC_EXT_WORDS && c->nx <= MSC_HEAD_WORDS) {
        /* Isend, Irecv, Put…: ENTER in two records, written in place like the rest. */
        uint64_t ne = c->nw > MSC_HEAD_WORDS ? 2 : 1;
        uint64_t n = ne + (merge ? 1 : nc + 1);
        uint64_t pos = ring_reserve(n);
        if (MSC_UNLIKELY(pos == UINT64_MAX)) return;
        if (ne == 1)
            write_one(pos, ehw, c->time, c->site, c->w);
        else
            write_two(pos, ehw, call_word(MSC_KIND_EXT, 0, c), c->time, c->site, c->w, c->nw);
        if (merge)
            write_complete_exit(pos + ne, c, done, 0, c->time);
        else {
            if (nc) write_done(pos + ne, c, done);
            write_one(pos + ne + nc, xhw, c->time, c->site, c->x);
        }
        commit(pos, n);
        return;
    }
    msc_arr xa = { MSC_ARR_INT | MSC_ARR_RAW, c->xarr, c->xarr_n };
    int nxa = c->xarr ? 1 : 0;
    uint64_t ne = records_for(c->nw, c->arr, c->narr), nx = merge ? 1 : nc + records_for(c->nx, &xa, nxa);
    uint64_t pos = ring_reserve(ne + nx);
    if (MSC_UNLIKELY(pos == UINT64_MAX)) return;
    write_records(pos, ne, ehw, c->func, c->seq, c->time, c->site, c->w, c->nw, c->arr, c->narr);
    if (merge)
        write_complete_exit(pos + ne, c, done, 0, c->time);
    else {
        if (nc) write_done(pos + ne, c, done);
        write_records(pos + ne + nc, nx - nc, xhw, c->func, c->seq, c->time, c->site, c->x, c->nx, &xa, nxa);
    }
    commit(pos, ne + nx);
}

/* A held call's ENTER and EXIT (msc_state.c), with the COMPLETE of a request MPI handed out already complete
 * between them, in one reservation, committed last to first, every record written in place with whole-record
 * copies where there are no arrays. The common case (each fits one record: Comm_rank, type and group calls)
 * first. */
void msc_emit_pair(const msc_call *c, int enter_flags)
{
    uint64_t ehw = call_word(MSC_KIND_ENTER, enter_flags | c->eflags, c);
    uint64_t xhw = call_word(MSC_KIND_EXIT, c->xflags, c);
    if (MSC_UNLIKELY((c->narr | c->xarr_n) != 0 || c->nw > MSC_HEAD_WORDS || c->nx > MSC_HEAD_WORDS ||
                     c->done_id)) {
        emit_pair_more(c, ehw, xhw);
        return;
    }
    uint64_t pos = ring_reserve(2);
    if (MSC_UNLIKELY(pos == UINT64_MAX)) return;
    write_one(pos, ehw, c->time, c->site, c->w);
    write_one(pos + 1, xhw, c->time, c->site, c->x);
    commit(pos, 2);
}

int msc_ring_take(msc_record *out, int max, int cap)
{
    /* The ring's fields in locals: the stores into out could alias them, which made every record reload them. */
    const msc_record *buf = ring.buf;
    _Atomic uint64_t *mark = ring.mark;
    const uint64_t mask = ring.mask;
    uint64_t tail = atomic_load_explicit(&ring.tail, memory_order_relaxed);
    int n = 0;
    for (;;) {
        uint64_t idx = tail & mask;
        if (atomic_load_explicit(&mark[idx], memory_order_acquire) != tail + 1) break;
        /* Never end a batch in front of an EXT record, so that a call's records travel in one frame; only a call
         * larger than cap is split (the decoder keeps an unfinished call across frames). */
        if (n >= max && (buf[idx].head.kind != MSC_KIND_EXT || n >= cap)) break;
        out[n++] = buf[idx];
        tail++;
    }
    if (n) {
        atomic_store_explicit(&ring.tail, tail, memory_order_seq_cst);
        wake_waiters();
        /* Stamps become nanoseconds here, off the application's threads (see msc_clock.c), once the slots are
         * free again: the producers need not wait for the conversion. */
        msc_clock_refine();
        msc_clock_convert(out, n);
    }
    return n;
}

int msc_ring_newest(uint64_t head, uint64_t *stamp)
{
    /* Back over the EXT records of the newest call (a few; bounded all the same) to its head record. Positions
     * already taken still hold their records until producers lap the ring, which the marks would show. */
    for (uint64_t pos = head, k = 0; pos-- > 0 && k < 256; k++) {
        uint64_t idx = pos & ring.mask;
        if (atomic_load_explicit(&ring.mark[idx], memory_order_acquire) != pos + 1) return -1;
        int kind = ring.buf[idx].head.kind;
        if (kind != MSC_KIND_EXT) {
            /* Taken records hold nanoseconds already (msc_ring_take converts them): only a record not taken yet
             * has a raw stamp. The caller asks about those only. */
            *stamp = ring.buf[idx].head.time;
            return kind;
        }
    }
    return -1;
}

int msc_ring_mid_call(void)
{
    uint64_t tail = atomic_load_explicit(&ring.tail, memory_order_relaxed);
    uint64_t idx = tail & ring.mask;
    /* A call's records are committed together, last first: the rest of a call whose head was taken is there. */
    return atomic_load_explicit(&ring.mark[idx], memory_order_acquire) == tail + 1 &&
           ring.buf[idx].head.kind == MSC_KIND_EXT;
}

void msc_emit_complete(int flags, int func, uint32_t seq, uint64_t time, uint64_t site, const int64_t *w)
{
    int64_t d[MSC_HEAD_WORDS];
    pack_complete(d, w);
    msc_emit(MSC_KIND_COMPLETE, flags | MSC_COMPLETE_PACKED, func, seq, time, site, d, MSC_HEAD_WORDS, NULL, 0);
}

/* Whether the call's last COMPLETE and its EXIT go out as one COMPLETE_EXIT record (records.json): an EXIT of at
 * most two words with no indices, flags the merged record has bits for, a cancelled word that is 0 or 1. */
static inline int mergeable(const msc_call *c)
{
    const int64_t *last = c->comp[c->ncomp - 1];
    return exit_mergeable(c) && (c->comp_flags[c->ncomp - 1] & ~(MSC_COMPLETE_SEND | MSC_COMPLETE_PROBE)) == 0 &&
           (last[5] == 0 || last[5] == 1);
}

/* The call's kept-back COMPLETEs at pos, one packed record each, the last one merged with the EXIT when merge. */
static inline void write_completes(uint64_t pos, const msc_call *c, int merge)
{
    int packed = c->ncomp - (merge ? 1 : 0);
    int64_t d[MSC_HEAD_WORDS];
    for (int i = 0; i < packed; i++) {
        pack_complete(d, c->comp[i]);
        write_one(pos + (uint64_t)i,
                  call_word(MSC_KIND_COMPLETE, c->comp_flags[i] | MSC_COMPLETE_PACKED, c), c->xtime,
                  c->site, d);
    }
    if (merge) write_complete_exit(pos + (uint64_t)packed, c, c->comp[packed], c->comp_flags[packed], c->xtime);
}

/* The call's kept-back COMPLETEs, one packed record each, and with with_exit its EXIT, in one reservation. The
 * common blocking call (Send, Recv, Wait, Sendrecv, Probe: one COMPLETE and an EXIT of one word) is one
 * COMPLETE_EXIT record: the two records of a COMPLETE and the EXIT's were three before format 2. */
void msc_emit_completes(const msc_call *c, int with_exit)
{
    int merge = with_exit && c->ncomp > 0 && mergeable(c);
    uint64_t n = (uint64_t)c->ncomp + (with_exit && !merge ? 1 : 0);
    if (n == 0) return;
    uint64_t pos = ring_reserve(n);
    if (MSC_UNLIKELY(pos == UINT64_MAX)) return;
    write_completes(pos, c, merge);
    if (with_exit && !merge)
        write_one(pos + n - 1, call_word(MSC_KIND_EXIT, c->xflags, c), c->xtime, c->site, c->x);
    commit(pos, n);
}

/* A poll whose ENTER was held and that completed something (a Test, Testall, Testany, Testsome or Iprobe that found
 * it): its ENTER (with the stamp of its start), the COMPLETE of a request MPI handed out already complete, its
 * kept-back COMPLETEs and its EXIT (one stamp after PMPI returned, msc_exit_stamp), the last COMPLETE and the EXIT
 * one COMPLETE_EXIT record where they fit, all in one reservation: a Test that completes a request is two records
 * and one reservation (three records in three reservations before). The same records the other way gave, in the
 * same order. */
void msc_emit_call(const msc_call *c, int enter_flags)
{
    int merge = c->ncomp > 0 && mergeable(c);
    msc_arr xa = { MSC_ARR_INT | MSC_ARR_RAW, c->xarr, c->xarr_n };
    int nxa = c->xarr ? 1 : 0;
    uint64_t ne = records_for(c->nw, c->arr, c->narr), nd = c->done_id ? 1 : 0;
    uint64_t nx = merge ? 0 : records_for(c->nx, &xa, nxa);
    uint64_t n = ne + nd + (uint64_t)c->ncomp + nx;
    uint64_t pos = ring_reserve(n);
    if (MSC_UNLIKELY(pos == UINT64_MAX)) return;
    write_records(pos, ne, call_word(MSC_KIND_ENTER, enter_flags | c->eflags, c), c->func, c->seq,
                  c->time, c->site, c->w, c->nw, c->arr, c->narr);
    if (nd) {
        const int64_t done[6] = { c->done_id, -1, -1, 0, MPI_SUCCESS, 0 };
        write_done(pos + ne, c, done);
    }
    write_completes(pos + ne + nd, c, merge);
    if (!merge)
        write_records(pos + ne + nd + (uint64_t)c->ncomp, nx, call_word(MSC_KIND_EXIT, c->xflags, c),
                      c->func, c->seq, c->xtime, c->site, c->x, c->nx, &xa, nxa);
    commit(pos, n);
}
