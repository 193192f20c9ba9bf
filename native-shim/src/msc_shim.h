/* Internal interface of the shim: what the generated wrappers and the hand-written parts share.
 *
 * A wrapper (generated, msc_wrappers.c) does: msc_call_begin → fill ENTER words → msc_enter →
 * msc_pre_CLASS → PMPI_* → fill EXIT words → msc_post_CLASS → msc_exit. Everything on that path is
 * lock-free and makes no system call (clock_gettime is a vDSO call). */
#ifndef MSC_SHIM_H
#define MSC_SHIM_H

#include <mpi.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "msc_args.h"
#include "msc_records.h"

#define MSC_EXPORT __attribute__((visibility("default")))
#define MSC_LIKELY(x) __builtin_expect(!!(x), 1)
#define MSC_UNLIKELY(x) __builtin_expect(!!(x), 0)

/* Local arrays in the wrappers; larger counts fall back to a thread-local scratch. */
#define MSC_LOCAL_STATUSES 16
#define MSC_LOCAL_REQUESTS 16
#define MSC_MAX_WORDS 16
#define MSC_MAX_ARRAYS 8
/* COMPLETE records a call keeps back to write with its EXIT in one reservation (msc_complete_deferred). */
#define MSC_MAX_COMPLETES 8

/* ENTER flags bit1: the call is made from a thread other than MPI_Init's (set once MPI_Init returned). */
#define MSC_ENTER_OTHER_THREAD 2
/* ENTER flags bit2: the words are the function's packed form (spec/records.json packedEnter; set by the generated
 * wrapper, which writes them so). */
#define MSC_ENTER_PACKED 4
/* ENTER flags bit3: the call is made from a callback MPI ran inside another call of the same thread (an attribute's
 * copy or delete function, msc_callbacks.c), so it nests in that call rather than runs beside it. Kept in
 * msc_tls_thread_kind while the callback runs, so that msc_enter_flags reads one thread-local byte as before. */
#define MSC_ENTER_NESTED 8
/* EXIT flags bit0: a flag output (Test*, Iprobe, Improbe, Initialized, Finalized) was true. */
#define MSC_FLAG_TRUE 1
/* COMPLETE flags: bit1 the completed operation is a send; bit2 it is a probe (nothing was received). */
#define MSC_COMPLETE_SEND 2
#define MSC_COMPLETE_PROBE 4
/* COMPLETE flags bit3: the packed one-record form (records.json); COMPLETE_EXIT flags bit3: cancelled. */
#define MSC_COMPLETE_PACKED 8
#define MSC_COMPLETE_EXIT_CANCELLED 8
/* DTYPE flags: bit1 the signature was cut at MSC_SIG_MAX pairs; bit2 the signature's length in words comes
 * first and the layout of a committed type with gaps follows it. */
#define MSC_DTYPE_TRUNCATED 2
#define MSC_DTYPE_LAYOUT 4

enum { MSC_STATE_UNINIT = 0, MSC_STATE_OFF = 1, MSC_STATE_ON = 2 };
enum { MSC_END_FINALIZED = 1, MSC_END_EXIT = 2, MSC_END_SIGNAL = 3, MSC_END_ABORT = 4 };
enum { MSC_ARR_INT = 0, MSC_ARR_REQUEST = 1, MSC_ARR_DATATYPE = 2, MSC_ARR_I64 = 3 };
/* An array flag: write the elements only, without the leading length word (COMM members, DTYPE pairs). */
#define MSC_ARR_RAW 0x10

typedef struct msc_arr {
    int kind;
    const void *ptr;
    int n;
} msc_arr;

/* One intercepted call in progress; lives on the wrapper's stack. */
typedef struct msc_call {
    /* The call's records' head word without kind and flags (msc_ring.c head_word): bytes 0-1 zero, func, seq; one
     * load and two ORs per record instead of assembling it from the fields each time. */
    union {
        uint64_t idw;
        struct {
            uint16_t idw_zero;
            uint16_t func;
            uint32_t seq;
        };
    };
    uint8_t xflags;
    /* ENTER flags the wrapper knows (MSC_ENTER_PACKED); the thread's bit is added when it is written. Next to
     * xflags, which msc_call_begin sets with it: one store for the two. */
    uint8_t eflags;
    uint8_t held; /* its ENTER is held back (msc_state.c): MSC_HELD_POLL or MSC_HELD_LOCAL, set by msc_enter* */
    /* While the ENTER is held: the made-up id of a request MPI handed out already complete (msc_w_new_request),
     * whose COMPLETE goes out between the ENTER and the EXIT; 0 for none. */
    int64_t done_id;
    uint64_t time;
    uint64_t xtime; /* the stamp after PMPI returned, taken once for the COMPLETE records and the EXIT (0: not yet) */
    uint64_t site;
    int nw, narr, nx, xarr_n;
    int64_t w[MSC_MAX_WORDS];
    msc_arr arr[MSC_MAX_ARRAYS];
    int64_t x[8];
    const int *xarr;
    /* COMPLETE records of this call not written yet: their words and flags (msc_complete_deferred). ncomp is
     * meaningful only while msc_pending_call is this call (set with its first record, so the hot path of a
     * call that completes nothing does not pay for zeroing it). */
    int ncomp;
    uint8_t comp_flags[MSC_MAX_COMPLETES];
    int64_t comp[MSC_MAX_COMPLETES][6];
} msc_call;

enum { MSC_HELD_NONE = 0, MSC_HELD_POLL = 1, MSC_HELD_LOCAL = 2 };

/* ---- global state (msc_state.c) ---- */
extern _Atomic int msc_state;
extern _Atomic int msc_attention;
/* The end of the last block of seqs handed out to a thread (msc_next_seq): no call's seq is above it. */
extern _Atomic uint32_t msc_seq;
/* MPI is usable (between PMPI_Init and PMPI_Finalize): only then may the shim make PMPI queries. */
extern int msc_mpi_ready;
extern __thread int msc_tls_depth __attribute__((tls_model("initial-exec")));
/* A poll whose ENTER is held back until it matters (msc_state.c); msc_emit sends it before any other record. */
extern __thread msc_call *msc_held_call __attribute__((tls_model("initial-exec")));
void msc_emit_held(void);
/* A call whose COMPLETE records wait for its EXIT (msc_complete_deferred); msc_emit writes them before any other
 * record of the thread, so the order of records never changes. */
extern __thread msc_call *msc_pending_call __attribute__((tls_model("initial-exec")));
void msc_emit_pending(void);
/* A COMPLETE of the call (6 words), after PMPI returned: kept back and written with the EXIT in one reservation
 * when the call's ENTER is out already, else emitted at once (behind a held ENTER). */
void msc_complete_deferred(msc_call *c, int flags, const int64_t *w);
/* One COMPLETE (its 6 words, records.json) written at once, in its packed one-record form (msc_ring.c). */
void msc_emit_complete(int flags, int func, uint32_t seq, uint64_t time, uint64_t site, const int64_t *w);

int msc_lazy_init(void);
void msc_pause_point(msc_call *c);

/* ---- debugger control (msc_control.c) ---- */
void msc_control_pause(int on);
/* A `continue` from the analyzer: releases held threads and counts it (acknowledgements carry the count). */
void msc_control_continue(void);
void msc_control_breakpoints(const unsigned char *fns);
void msc_control_breakpoints_from_env(void);
/* The index of an MPI function name (msc_func_names), or -1. */
int msc_func_id(const char *name, size_t len);
/* The module holding addr: its path and addr's offset from the module's load bias (what addr2line takes). */
int msc_addr_module(uint64_t addr, uint64_t *offset, char *path, size_t cap);
/* The backtrace of a thread blocked inside MPI, on the analyzer's request (see msc_control.c for why a signal
 * and when it is safe): install on the MPI_Init thread after PMPI_Init; request and poll on the sender thread. */
void msc_control_probe_install(void);
/* The crashing thread's stack, queued as a `crash` text before the stream's END (from the crash handler). */
void msc_control_crash(int sig, const siginfo_t *info, int in_call);
void msc_control_crash_warm(void);
void msc_control_probe_request(void);
void msc_control_probe_poll(void);

/* CLOCK_MONOTONIC in ns: deadlines, and the time of records that do not go through the ring. */
static inline uint64_t msc_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ---- clock (msc_clock.c) ---- */
static inline uint64_t msc_rdtsc(void)
{
#if defined(__x86_64__) || defined(__i386__)
    return __builtin_ia32_rdtsc();
#else
    return msc_now();
#endif
}
/* 1 when stamps are TSC ticks (converted to ns by the ring's consumer), 0 when they are already ns. */
extern int msc_clock_tsc;
/* The time of a record that goes through the ring: ~11 ns instead of clock_gettime's ~28. */
static inline uint64_t msc_stamp(void) { return MSC_LIKELY(msc_clock_tsc) ? msc_rdtsc() : msc_now(); }
/* Chooses the clock and anchors it; returns CLOCK_REALTIME ns at the anchor (for the CLOCK record). */
int64_t msc_clock_init(void);
/* The stamp of the anchor: its ns value is CLOCK_MONOTONIC at the instant of the returned realtime. */
uint64_t msc_clock_anchor(void);
void msc_clock_refine(void);
uint64_t msc_clock_ns(uint64_t stamp);
/* msc_clock_ns on the stamp of every head record of r[0, n) (consumer side: msc_ring_take). */
void msc_clock_convert(msc_record *r, int n);
/* The same conversion for any thread (no monotonic clamp): the clock alignment's exchanges. */
uint64_t msc_clock_peek_ns(uint64_t stamp);
/* CLOCK_REALTIME ns now (shifted like the records' clock by the tests' MPISCOPE_TEST_CLOCK_SKEW). */
int64_t msc_clock_realtime(void);
/* Estimates this rank's clock offset against rank 0 (msc_clockalign.c): phase 1 in MPI_Init, 2 in MPI_Finalize. */
void msc_clock_align(int phase);

/* Call seqs: unique in the process, increasing on each thread. A thread takes MSC_SEQ_BLOCK of them at a
 * time from msc_seq, so the hot path pays a thread-local increment instead of an atomic read-modify-write on
 * a line every thread shares (a locked add took 2-5 ns here in a loop of its own, against ~18 ns that recording adds to MPI_Comm_rank). Seqs of
 * different threads are therefore not in the order of their calls, and a thread that ends leaves a gap;
 * neither matters: the analyzer keys calls by seq and orders them by arrival, and polls that find nothing
 * already leave gaps. */
#define MSC_SEQ_BLOCK 64u
/* The next seq this thread hands out; a multiple of MSC_SEQ_BLOCK (0 at the thread's start) means its block is
 * used up. */
extern __thread uint32_t msc_tls_seq __attribute__((tls_model("initial-exec")));
uint32_t msc_seq_refill(void);
static inline __attribute__((always_inline)) uint32_t msc_next_seq(void)
{
    uint32_t s = msc_tls_seq;
    if (MSC_UNLIKELY((s & (MSC_SEQ_BLOCK - 1)) == 0)) return msc_seq_refill();
    msc_tls_seq = s + 1;
    return s;
}

#ifdef MSC_MEMCHECK
/* The memcheck build: window memory outside fence and exposure epochs has loads or stores of the rank not sent yet
 * (msc_memcheck.c); they go out before the next call's ENTER, so that the analyzer places them between the calls. */
extern _Atomic int msc_mc_passive_dirty;
void msc_mc_passive_flush(const msc_call *c);
#endif

/* Returns 0 when the call must go straight to PMPI: recording off, or a call made from inside MPI
 * (or from inside the shim) on this thread. Disabled costs one relaxed load. */
static inline __attribute__((always_inline)) int msc_call_begin(msc_call *c, int func, void *site)
{
    int st = atomic_load_explicit(&msc_state, memory_order_relaxed);
    if (MSC_UNLIKELY(st != MSC_STATE_ON)) {
        if (st != MSC_STATE_UNINIT || !msc_lazy_init()) return 0;
    }
    if (msc_tls_depth) return 0;
    msc_tls_depth = 1;
    c->idw = (uint64_t)(uint16_t)func << 16 | (uint64_t)msc_next_seq() << 32;
    c->xflags = 0;
    c->eflags = 0;
    c->time = msc_stamp();
    c->xtime = 0;
    c->site = (uint64_t)(uintptr_t)site;
    c->nw = c->narr = c->nx = c->xarr_n = 0;
    c->xarr = 0;
    /* The words a head record holds start at zero: a record is then written with whole-record copies,
     * no per-word test, and no stale stack data leaves the process (msc_emit_pair). */
    for (int i = 0; i < MSC_HEAD_WORDS; i++) c->w[i] = c->x[i] = 0;
#ifdef MSC_MEMCHECK
    if (MSC_UNLIKELY(atomic_load_explicit(&msc_mc_passive_dirty, memory_order_relaxed))) msc_mc_passive_flush(c);
#endif
    return 1;
}

/* The time of what a call emits after PMPI returned (COMPLETE records, then its EXIT): one clock read for all. */
static inline uint64_t msc_exit_stamp(msc_call *c)
{
    if (!c->xtime) c->xtime = msc_stamp();
    return c->xtime;
}

static inline void msc_add_array(msc_call *c, int kind, const void *ptr, int n)
{
    if (c->narr < MSC_MAX_ARRAYS) {
        c->arr[c->narr].kind = kind;
        c->arr[c->narr].ptr = ptr;
        c->arr[c->narr].n = n < 0 ? 0 : n;
        c->narr++;
    }
}

/* ---- ring (msc_ring.c) ---- */
int msc_ring_init(unsigned records);
/* Appends one head record and its EXT records, contiguously. Lock-free; drops (and counts) when full. */
void msc_emit(int kind, int flags, int func, uint32_t seq, uint64_t time, uint64_t site, const int64_t *w, int nw,
              const msc_arr *arr, int narr);
uint64_t msc_ring_head(void);
uint64_t msc_ring_dropped(void);
/* Times producers slept on a full ring, and the ns they slept in all. */
void msc_ring_stats(uint64_t *waits, uint64_t *wait_ns);
/* Copies up to max committed records into out; stops early rather than split a call. Consumer side only. */
int msc_ring_take(msc_record *out, int max, int cap);
/* The next record to take is an EXT record: the last take stopped inside a call (one larger than its cap). */
int msc_ring_mid_call(void);
/* The kind of the head record of the newest call below position head (MSC_KIND_*) and its stamp, or -1 when it is
 * not committed yet. Consumer side: whether the rank is inside an MPI call (its last record is no EXIT), since
 * when. */
int msc_ring_newest(uint64_t head, uint64_t *stamp);
/* The sender's mark: the first reservation that reaches position at wakes the sender (msc_sender_nudge) and
 * disarms it; UINT64_MAX disarms. */
void msc_ring_arm(uint64_t at);
extern _Atomic int msc_connected;
/* Wakes every producer sleeping on a full ring (the connection is gone: they drop and go on). */
void msc_ring_wake_all(void);

void msc_enter(msc_call *c);
/* The ENTER and EXIT of a call whose ENTER was held back, in one reservation (msc_ring.c). */
void msc_emit_pair(const msc_call *c, int enter_flags);
/* The call's kept-back COMPLETE records, and with with_exit its EXIT (at most MSC_HEAD_WORDS words, no array)
 * after them, in one reservation (msc_ring.c). */
void msc_emit_completes(const msc_call *c, int with_exit);
/* A held poll's ENTER, its kept-back COMPLETE records and its EXIT in one reservation (msc_ring.c). */
void msc_emit_call(const msc_call *c, int enter_flags);
/* The call this thread is in, between msc_enter and msc_exit (NULL outside). */
extern __thread msc_call *msc_tls_call __attribute__((tls_model("initial-exec")));
/* After MPI_Init: MPI_ERRORS_ARE_FATAL on MPI_COMM_WORLD and MPI_COMM_SELF becomes a handler that records the
 * failing call's EXIT and ends the stream before aborting as MPI would (msc_lifecycle.c). */
void msc_lifecycle_errors(void);
/* Saves the calling thread as the MPI_Init thread (ENTER flags bit1 marks calls from any other). */
void msc_mark_init_thread(void);
void msc_exit(msc_call *c);

/* ENTER flags bit1 (MSC_ENTER_OTHER_THREAD): which thread this is, cached per thread (msc_state.c). */
extern __thread uint8_t msc_tls_thread_kind __attribute__((tls_model("initial-exec")));
uint8_t msc_thread_kind_slow(void);
static inline int msc_enter_flags(void)
{
    uint8_t kind = msc_tls_thread_kind;
    if (MSC_UNLIKELY(kind == 0)) kind = msc_thread_kind_slow();
    return ((kind & 3) == 2 ? MSC_ENTER_OTHER_THREAD : 0) | (kind & MSC_ENTER_NESTED);
}

/* ---- user callbacks MPI runs inside a call (msc_callbacks.c) ---- */
/* What MPI_{Comm,Type,Win}_create_keyval passes to MPI: the user's copy and delete functions, or the shim's
 * trampolines with a box of them as the extra state. */
typedef struct msc_keyval_fns {
    void (*copy)(void);
    void (*del)(void);
    void *extra;
} msc_keyval_fns;
enum { MSC_KEYVAL_COMM = 0, MSC_KEYVAL_TYPE = 1, MSC_KEYVAL_WIN = 2 };
msc_keyval_fns msc_keyval_wrap(int kind, void (*copy)(void), void (*del)(void), void *extra);

/* msc_enter for a call that cannot wait on another process (Comm_rank, Isend, Irecv, Put, type and group calls…;
 * spec/mpi-api.json "localClasses"): nothing needs its ENTER before it returns, since a rank cannot be blocked in
 * it. So the ENTER is held, like a poll's, and written with the EXIT at msc_exit_local in one reservation; the
 * EXIT carries the ENTER's stamp (one clock read per call). Anything emitted in between (a FINDING, a COMPLETE, a
 * description, the fatal-error handler's EXIT, a crash) sends the ENTER first, with its own time, so the order of
 * records never changes. With a debugger attached (attention) the ENTER goes out at once, so that the pause point
 * can announce it. Inline, like msc_exit_local: the pair of calls into the library was a tenth of what recording
 * adds to MPI_Comm_rank. */
static inline __attribute__((always_inline)) void msc_enter_local(msc_call *c)
{
    msc_tls_call = c;
    if (MSC_UNLIKELY(atomic_load_explicit(&msc_attention, memory_order_relaxed))) {
        msc_enter(c);
        return;
    }
    c->held = MSC_HELD_LOCAL;
    c->done_id = 0;
    msc_held_call = c;
}

/* msc_exit for a call entered by msc_enter_local. The common case inline: its ENTER is still held (nothing was
 * emitted in between), so ENTER and EXIT go out as one pair. Anything else (the ENTER went out already, recording
 * went off) is msc_exit's. */
static inline __attribute__((always_inline)) void msc_exit_local(msc_call *c)
{
    if (MSC_LIKELY(msc_held_call == c && atomic_load_explicit(&msc_state, memory_order_relaxed) == MSC_STATE_ON)) {
        msc_held_call = NULL;
        c->held = MSC_HELD_NONE;
        msc_emit_pair(c, msc_enter_flags());
        msc_tls_call = NULL;
        msc_tls_depth = 0;
        return;
    }
    msc_exit(c);
}

/* Quiet calls (spec/mpi-api.json "quiet": MPI_Pack, MPI_Unpack, MPI_Comm_rank, MPI_Type_size, MPI_Cart_shift…):
 * purely local, creating nothing, with no buffer or handle the analyzer follows once the shim checked their
 * arguments. Some programs make them in inner loops (ESyS-Particle packs each particle one double at a time with
 * MPI_Pack: tens of millions of calls a run, which the analyzer cannot take; the ring fills and the job ran over
 * 15 times as long as bare). So, like a poll that found nothing, a quiet call whose ENTER is still held at its exit
 * (nothing was emitted in between: no FINDING, no crash) and that succeeded is not recorded, except the first
 * MSC_QUIET_FIRST of each thread (a short program is recorded whole) and one in MSC_QUIET_KEEP after that (a rank
 * in such a loop is still seen). Every call is recorded while a thread other than MPI_Init's has called MPI
 * (msc_other_threads: the thread-level checks compare the calls of threads) or a debugger is attached (then the
 * ENTER is not held). Its seq is simply missing from the stream, as a forgotten poll's. */
#define MSC_QUIET_FIRST 64u
#define MSC_QUIET_KEEP 1024u
extern __thread unsigned msc_tls_quiet __attribute__((tls_model("initial-exec")));
extern _Atomic int msc_other_threads;
static inline __attribute__((always_inline)) void msc_exit_quiet(msc_call *c)
{
    if (msc_held_call == c && c->x[0] == MPI_SUCCESS && msc_tls_thread_kind == 1 &&
        !atomic_load_explicit(&msc_other_threads, memory_order_relaxed) && ++msc_tls_quiet > MSC_QUIET_FIRST &&
        msc_tls_quiet % MSC_QUIET_KEEP != 0) {
        msc_held_call = NULL;
        c->held = MSC_HELD_NONE;
        msc_tls_call = NULL;
        msc_tls_depth = 0;
        return;
    }
    msc_exit_local(c);
}

/* ---- sender (msc_sender.c) ---- */
int msc_sender_connect(const char *url, const char *token, char *why, size_t whylen);
int msc_launcher_rank(void);
/* Call sites of modules the analyzer cannot read (msc_sites.c): note a new SITE (returns 1 and the module's
 * description in text when the module is new), mark a module as resolved here, and resolve what is due. */
int msc_sites_note(uint64_t address, uint64_t offset, const char *path, char *text, size_t cap);
void msc_sites_resolve_request(const char *t, size_t len);
void msc_sites_work(void (*send)(const char *text));
void msc_sender_start(void);
/* Ends the stream: drains the ring, sends END (once), and with close_after closes the connection. Bounded by
 * timeout_ms; usable in a signal handler as far as it can be (it only polls atomics and nanosleeps while
 * the sender thread does the work). */
void msc_sender_finish(int how, int code, int close_after, int timeout_ms);
/* Set after MPI_Finalize: every later call is flushed before it reaches MPI, which aborts on it. */
extern _Atomic int msc_after_finalize;
/* Set until MPI_Init returns: calls before it are flushed before they reach MPI too. */
extern _Atomic int msc_before_init;
void msc_attention_update(void);
/* Blocks (bounded) until every record emitted so far has been sent: used before forwarding a call that
 * failed a check, because MPI may abort on it. */
void msc_sender_flush(int timeout_ms);
void msc_sender_queue_text(const char *text);
/* Wakes the sender thread for something it must do now: send what is in the ring (a full ring, a flush, a
 * control text). */
void msc_sender_wake(void);
/* Wakes the sender thread to look at the ring (its mark was reached): it decides whether to send. */
void msc_sender_nudge(void);
void msc_sender_forget(void);
extern int msc_world_rank, msc_world_size, msc_thread_level;

/* ---- websocket (msc_ws.c) ---- */
/* Opens the WebSocket; on failure returns -1 and says why (one clause, for the rank's stderr line). */
int msc_ws_open(const char *url, const char *token, int timeout_ms, char *why, size_t whylen);
/* patient: a send the analyzer has not taken within the socket's 5 s timeout is waited on while the connection is
 * alive (the analyzer is behind, e.g. on a loaded machine), up to MSC_WS_STALL_NS without a byte taken; without
 * it (exit paths on the rank's own thread), the 5 s bound breaks the connection. */
#define MSC_WS_STALL_NS (120ull * 1000000000ull)
int msc_ws_send(int fd, int opcode, unsigned char *payload, size_t len, int patient);
/* How long one send may wait for the analyzer to take a byte (SO_SNDTIMEO): 5 s, or MPISCOPE_SEND_TIMEOUT_MS. */
int msc_ws_send_timeout_ms(void);
/* The connection is still open (no error, hang-up or orderly close from the analyzer seen). */
int msc_ws_alive(int fd);
/* Reads what is available; calls on_text for each complete text frame. Returns MSC_WS_CLOSED when the peer
 * sent a close frame (it ended the connection on purpose), -1 when the connection broke or misbehaved. */
#define MSC_WS_CLOSED (-2)
int msc_ws_poll_read(int fd, void (*on_text)(const char *text, size_t len));

/* Frees the TLS state, if any, and closes the socket. */
void msc_ws_close(int fd);
/* Bytes TLS has decrypted and not handed out yet: readable although poll() says nothing. */
int msc_ws_pending(void);

/* ---- TLS for wss:// (msc_tls.c): OpenSSL loaded with dlopen, the analyzer's certificate pinned ---- */
int msc_tls_start(int fd, int timeout_ms, char *why, size_t whylen);
int msc_tls_active(void);
int msc_tls_write(int fd, const void *p, size_t n, int patient);
/* Bytes read, 0 when the peer closed, -1 on error, -2 when nothing came within timeout_ms (0: do not wait). */
ssize_t msc_tls_read(int fd, void *p, size_t n, int timeout_ms);
int msc_tls_pending(void);
void msc_tls_close(void);

/* ---- spill file when the analyzer dies (msc_spill.c); all under the sender's lock ---- */
int msc_spill_enabled(void);
/* Numbers a frame about to be sent and keeps a copy in the bounded history (no copy when p is the area below). */
void msc_spill_keep(int opcode, const void *p, size_t n);
/* Where the next frame of at most need bytes may be built so that keeping it costs no copy: the history's next
 * free span (wrapped to its start when the span left is shorter), or NULL when there is no history, the rank
 * is spilling already, or need is more than half the history (the caller builds it elsewhere; it is copied). */
void *msc_spill_area(size_t need);
/* Opens the rank's spill file with the kept history; 0 when spilling is off or the file cannot be written. */
int msc_spill_begin(int rank, const char *why);
/* Appends a frame; 0 when the bound is reached or the write failed (the file is then closed). */
int msc_spill_write(int opcode, const void *p, size_t n);
int msc_spill_active(void);
void msc_spill_close(void);
void msc_spill_forget(void);

/* ---- descriptions of handles (msc_describe.c) ---- */
void msc_describe_init(uint32_t seq, uint64_t time);
void msc_describe_comm(MPI_Comm comm, MPI_Comm parent, uint32_t seq, uint64_t time);
/* The same for a communicator made by an earlier call (MPI_Comm_idup): creator_seq is that call's. */
void msc_describe_comm_created(MPI_Comm comm, MPI_Comm parent, uint32_t creator_seq, uint32_t seq, uint64_t time);
void msc_describe_datatype(MPI_Datatype t, int committed, uint32_t seq, uint64_t time);
void msc_describe_op(MPI_Op op, int commute, uint32_t seq, uint64_t time);
int msc_basic_type_id(MPI_Datatype t);
int msc_op_id(MPI_Op op); /* a predefined op's index in msc_ops, or -1 */
void msc_fill_basic_types(MPI_Datatype *out);
void msc_fill_ops(MPI_Op *out);
extern const char *const msc_func_names[MSC_FN_COUNT];
extern const char *const msc_basic_type_names[MSC_BT_COUNT];
extern const char *const msc_check_names[MSC_CHECK_COUNT];
/* The spec's id of an MPI error class (spec errorClasses), -1 when the spec does not list it (msc_tables.c). */
int msc_error_class_id(int cls);
extern const unsigned char msc_op_allows[MSC_OPID_COUNT][MSC_BT_COUNT];
extern const char *const msc_param_roles[MSC_FN_COUNT];
/* The spec's coll or rma name of each function, else its class (memcheck ownership, msc_memcheck.c). */
extern const char *const msc_func_what[MSC_FN_COUNT];
extern const uint64_t msc_role_mask[MSC_FN_COUNT];
extern const char *const msc_role_names[];
extern MPI_Datatype msc_basic_types[MSC_BT_COUNT];
extern MPI_Op msc_ops[MSC_OPID_COUNT];

/* ---- lifecycle (msc_lifecycle.c) ---- */
void msc_lifecycle_install(void);
void msc_lifecycle_signals(void);

/* ---- lock-free handle tables (msc_table.c) ---- */
#define MSC_TBL_BITS 12
#define MSC_TBL_SIZE (1u << MSC_TBL_BITS)
#define MSC_TBL_PROBE 16
/* Levels of a table: level k holds MSC_TBL_SIZE << k slots, mapped when level k - 1 has no room for a key. */
#define MSC_TBL_LEVELS 6
typedef struct msc_slot {
    _Atomic uint64_t key; /* a handle's word; 0 is a free slot */
    _Atomic int64_t v[5];
    /* As a home slot: the farthest offset from here at which a key hashing here was ever placed. Lookups scan
     * only that far (a miss costs one or two slots instead of the whole neighbourhood). */
    _Atomic uint32_t reach;
} msc_slot;
typedef struct msc_table {
    msc_slot s[MSC_TBL_SIZE];
    _Atomic(msc_slot *) more[MSC_TBL_LEVELS - 1];
    int off; /* MSC_CHECK_ of the note that says the table is full (msc_check_off) */
} msc_table;
#define MSC_TABLE(check) { .off = MSC_CHECK_##check }
/* Reads MPISCOPE_TABLE_LEVELS (the tests make it 1); once, before recording starts. */
void msc_tbl_init(void);
msc_slot *msc_tbl_find(msc_table *t, uint64_t key);
/* Finds or claims the slot of key; NULL when every level's neighbourhood of it is full (the table's note is sent). */
msc_slot *msc_tbl_put(msc_table *t, uint64_t key);
void msc_tbl_del(msc_slot *s);
/* A check of the shim went off for the rest of the run (check: its note's MSC_CHECK_ id): told once, at the next
 * call's entry (msc_checks_off_tell, from msc_pause_point). */
void msc_check_off(int check);
extern _Atomic int msc_checks_off_untold;
void msc_checks_off_tell(msc_call *c);
/* Recomputes msc_attention under the control lock (msc_control.c). */
void msc_attention_raise(void);

/* ---- argument checks and send checksums (msc_checks.c) ---- */
extern int msc_checks_on;
extern int msc_tag_ub;
void msc_heap_init(void);
void msc_object_bytes(msc_call *c, int param, const void *base, int64_t size);
void msc_check_win_memory(msc_call *c, const msc_args *a);
void msc_finding(msc_call *c, int check, int param, int64_t value, int64_t extra1, int64_t extra2);
void msc_check_p2p(msc_call *c, const msc_args *a, int is_recv);
/* The same for the classes send/isend/send_init and recv/irecv/recv_init, with only the roles those have. */
void msc_check_send(msc_call *c, const msc_args *a);
void msc_check_recv(msc_call *c, const msc_args *a);
void msc_check_coll(msc_call *c, const msc_args *a);
void msc_check_requests(msc_call *c, const msc_args *a);
void msc_check_win(msc_call *c, const msc_args *a);
/* A window made (its group's size is recorded for the target-rank check) or freed. */
void msc_win_track(MPI_Win win, MPI_Comm comm, int freed);
/* A window synchronization returned successfully: which epochs may be open (for the access-outside-epoch flush). */
void msc_win_epoch(MPI_Win win, int func);
enum { MSC_DT_CREATED = 1, MSC_DT_COMMITTED = 2, MSC_DT_FREED = 3 };
void msc_dtype_track(MPI_Datatype t, int state);
/* MPI handed out one more reference to a derived datatype (MPI_Type_get_contents): its next MPI_Type_free
 * drops that reference, not the type (msc_dtype_free). */
void msc_dtype_reference(MPI_Datatype t);
/* MPI_Type_free succeeded: the type is freed, or one of its references dropped. */
void msc_dtype_free(MPI_Datatype t);
void msc_comm_track(MPI_Comm comm, int freed);
void msc_buffer_attached(int64_t size);
/* A pending send's buffer: summed when the send starts, summed again when it completes. */
/* Reads MPISCOPE_CHECKSUM_EXACT_BYTES (the largest message summed whole); once, before recording starts. */
void msc_checksum_init(void);
void msc_checksum_start(MPI_Request req, const void *buf, int count, MPI_Datatype t);
void msc_checksum_post(msc_call *c, const msc_args *a, MPI_Request req);
/* where: the caller's request variable (Wait/Test) or array entry, NULL when unknown. */
void msc_checksum_complete(msc_call *c, MPI_Request req, const MPI_Request *where);
/* The request was freed: its send (if any) is no longer followed. */
void msc_checksum_forget(MPI_Request req, const MPI_Request *where);
void msc_layout_forget(MPI_Datatype t);
/* This call's findings were about an earlier call: nothing to flush before forwarding. */
void msc_findings_clear(void);
/* Some send was summed (msc_checksum.c): completions look for their send from then on. */
extern _Atomic int msc_checksums_used;
/* What the argument rules (msc_rules.c) ask about handles the checks track. */
int msc_dtype_state(MPI_Datatype t); /* MSC_DT_*, 0 when not tracked (predefined, or made before tracking) */
int msc_type_overlaps(MPI_Datatype t); /* two entries of its type map name the same bytes (msc_checksum.c) */
void msc_dtype_overlapping(MPI_Datatype t); /* remembers it of a committed type: receives report it */
int msc_comm_freed(MPI_Comm comm);
int msc_buffer_is_attached(void);
void msc_buffer_attach_state(int attached);

/* ---- replaying a race the other way (msc_replay.c), called by the generated wrappers of replayClasses ---- */
extern int msc_replay_armed;
/* Counts a wildcard receive; for the chosen one, sets *source to the chosen sender's rank in comm: 1 if forced. */
int msc_replay_source(int *source, MPI_Comm comm);
/* After the forced call's ENTER: the FINDING note (check replay-forced) that says what was forced. */
void msc_replay_forced(msc_call *c, int param, int source);

/* ---- argument rules (msc_rules.c), called by the generated wrappers (gen/generate.mjs genRules) ---- */
enum { MSC_TOPO_CART = 1, MSC_TOPO_GRAPH = 2, MSC_TOPO_DIST_GRAPH = 3, MSC_TOPO_NEIGHBORHOOD = 4 };
#define MSC_NO_ROOT INT32_MIN /* a rule's root argument when the function has none */
/* Flushes the findings of this call's rules before it is forwarded (MPI may abort on it). */
void msc_rules_done(void);
void msc_rule_comm(msc_call *c, int at, MPI_Comm comm);
void msc_rule_intra(msc_call *c, int at, MPI_Comm comm);
void msc_rule_inter(msc_call *c, int at, MPI_Comm comm);
void msc_rule_topology(msc_call *c, int at, MPI_Comm comm, int kind);
void msc_rule_user_comm(msc_call *c, int at, MPI_Comm comm);
void msc_rule_datatype(msc_call *c, int at, MPI_Datatype t);
void msc_rule_datatype_defined(msc_call *c, int at, MPI_Datatype t);
void msc_rule_datatype_unless(msc_call *c, int at, MPI_Datatype t, const void *buf, int root, MPI_Comm comm);
void msc_rule_datatype_at_root(msc_call *c, int at, MPI_Datatype t, int root, MPI_Comm comm);
void msc_rule_user_datatype(msc_call *c, int at, MPI_Datatype t);
void msc_rule_commit(msc_call *c, int at, MPI_Datatype t);
void msc_rule_op(msc_call *c, int at, MPI_Op op);
void msc_rule_user_op(msc_call *c, int at, MPI_Op op);
void msc_rule_group(msc_call *c, int at, MPI_Group g);
void msc_rule_group_not_empty(msc_call *c, int at, MPI_Group g);
void msc_rule_file(msc_call *c, int at, MPI_File f);
void msc_rule_win(msc_call *c, int at, MPI_Win w);
void msc_rule_info(msc_call *c, int at, MPI_Info i);
void msc_rule_errhandler(msc_call *c, int at, MPI_Errhandler e);
void msc_rule_count(msc_call *c, int at, int64_t n);
void msc_rule_rank(msc_call *c, int at, int rank, MPI_Comm comm);
void msc_rule_split_color(msc_call *c, int at, int color);
void msc_rule_logical(msc_call *c, int at, int v);
void msc_rule_logicals(msc_call *c, int at, int n, const int *v);
void msc_rule_cart_logicals(msc_call *c, int at, MPI_Comm comm, const int *v);
void msc_rule_cart_dims(msc_call *c, int at, MPI_Comm comm, int ndims, const int *dims);
void msc_rule_dims_create(msc_call *c, int at, int nnodes, int ndims, const int *dims);
void msc_rule_graph_nodes(msc_call *c, int at, MPI_Comm comm, int nnodes);
void msc_rule_group_ranks(msc_call *c, int at, int n, const int *ranks, MPI_Group g);
void msc_rule_group_ranks_or_null(msc_call *c, int at, int n, const int *ranks, MPI_Group g);
void msc_rule_ranges(msc_call *c, int at, int n, int ranges[][3], MPI_Group g);
void msc_rule_not_null(msc_call *c, int at, const void *p);
void msc_rule_not_null_if(msc_call *c, int at, const void *p, int64_t n);
void msc_rule_not_null_at_root(msc_call *c, int at, const void *p, int root, MPI_Comm comm);
void msc_rule_not_null_unless(msc_call *c, int at, const void *p, const void *buf);
void msc_rule_win_memory(msc_call *c, int at, const void *base, int64_t size);
void msc_rule_counts(msc_call *c, int at, int n, const int *counts);
void msc_rule_disp_unit(msc_call *c, int at, int64_t disp_unit);
void msc_rule_attach(msc_call *c, int at, const void *buf, int64_t size);
void msc_rule_detach(msc_call *c, int at);
/* MPI_File_open succeeded: the file is described to the analyzer as a communicator over the opening one's group. */
void msc_file_opened(msc_call *c, MPI_File fh, MPI_Comm comm);

/* ---- requests whose completion means more than a COMPLETE record (msc_requests.c) ---- */
void msc_persistent_send(msc_call *c, const msc_args *a, MPI_Request req);
void msc_requests_started(const MPI_Request *reqs, int n);
void msc_requests_freed(MPI_Request req, const MPI_Request *where);
void msc_idup_created(msc_call *c, MPI_Comm *newcomm, MPI_Comm parent, MPI_Request req);
/* Called for each operation completed successfully: describes an MPI_Comm_idup communicator. */
void msc_requests_completed(msc_call *c, MPI_Request req);
extern _Atomic int msc_tracked_requests;

/* ---- wrapper helpers (msc_words.c) ---- */
/* Inline, with the rare cases out of line (msc_words.c): a Waitall of two paid ~75 instructions for three calls
 * and a memcpy of 16 bytes (callgrind, bench/shim-overhead). */
MPI_Status *msc_statuses_scratch(int n);
static inline MPI_Status *msc_statuses_for(MPI_Status *user, int n, MPI_Status *local)
{
    if (user) return user;
    if (MSC_LIKELY(n <= MSC_LOCAL_STATUSES)) return local;
    return msc_statuses_scratch(n);
}
/* An empty status: source and tag "any", no error, count 0. */
extern const MPI_Status msc_status_empty;
static inline void msc_status_init(MPI_Status *st, int n)
{
    if (!st || st == MPI_STATUS_IGNORE || st == MPI_STATUSES_IGNORE) return;
    for (int i = 0; i < n; i++) st[i] = msc_status_empty;
}
MPI_Request *msc_copy_requests_scratch(const MPI_Request *reqs, int n);
static inline MPI_Request *msc_copy_requests(const MPI_Request *reqs, int n, MPI_Request *local)
{
    if (!reqs || n <= 0) return NULL;
    if (MSC_UNLIKELY(n > MSC_LOCAL_REQUESTS)) return msc_copy_requests_scratch(reqs, n);
    for (int i = 0; i < n; i++) local[i] = reqs[i];
    return local;
}
int msc_len_commsize(MPI_Comm comm);
int msc_len_localsize(MPI_Comm comm);
int msc_len_rootcommsize(MPI_Comm comm, int root);
int msc_len_indegree(MPI_Comm comm);
int msc_len_outdegree(MPI_Comm comm);
int msc_len_graph_edges(int nnodes, const int *index);
int msc_topo_degrees(MPI_Comm comm, int *in, int *out);
/* The same asked of MPI (msc_words.c); msc_topo_degrees keeps its answer per communicator and thread (msc_checks.c). */
int msc_topo_degrees_ask(MPI_Comm comm, int *in, int *out);
/* The EXIT word of a new request (see msc_request_shared). */
int64_t msc_w_new_request(msc_call *c, MPI_Request r);
/* Handles are pointers (Open MPI) or ints (MPICH): take their bits, zero-extended. */
static inline int64_t msc_hword(const void *h, size_t size)
{
    uint64_t v = 0;
    __builtin_memcpy(&v, h, size < sizeof v ? size : sizeof v);
    return (int64_t)v;
}

static inline int64_t msc_w_addr(const void *p) { return (int64_t)(intptr_t)p; }
static inline int64_t msc_w_buf(const void *p) { return p == MPI_IN_PLACE ? -1 : (int64_t)(intptr_t)p; }
static inline int64_t msc_w_rank(int r)
{
    if (r == MPI_ANY_SOURCE) return -1;
    if (r == MPI_PROC_NULL) return -2;
    if (r == MPI_ROOT) return -3;
    return r;
}
static inline int64_t msc_w_tag(int t) { return t == MPI_ANY_TAG ? -1 : t; }
/* MPI_LOCK_EXCLUSIVE and MPI_LOCK_SHARED differ between libraries (1/2 in Open MPI, 234/235 in MPICH). */
static inline int64_t msc_w_locktype(int t)
{
    if (t == MPI_LOCK_EXCLUSIVE) return 1;
    if (t == MPI_LOCK_SHARED) return 2;
    return t;
}

/* Handles become words: the NULL handle is 0, anything else the handle's bits (pointer or int). */
#define MSC_HANDLE_WORD(T, NULLH)                                                                              \
    static inline int64_t msc_w_##T(T h) { return h == NULLH ? 0 : msc_hword(&h, sizeof h); }
MSC_HANDLE_WORD(MPI_Comm, MPI_COMM_NULL)
MSC_HANDLE_WORD(MPI_Datatype, MPI_DATATYPE_NULL)
/* Requests that MPI hands out already complete and shared between calls: MPICH's builtin request handles
 * (e.g. one handle for every Isend that completed at once) and Open MPI's ompi_request_empty (operations
 * with MPI_PROC_NULL). Their handle says nothing about which call made them, so the shim reports such a
 * request as complete right at its creation under a unique made-up id, and as MSC_REQUEST_DONE everywhere
 * else: not as 0, which is MPI_REQUEST_NULL (a Waitany/Testsome array holds nulls for the requests it already
 * completed, and those must not be taken for these). */
#define MSC_REQUEST_DONE 1
extern MPI_Request msc_shared_request;
static inline int msc_request_shared(MPI_Request r)
{
#if defined(MPICH)
    return r != MPI_REQUEST_NULL && ((unsigned)r >> 30) == 1;
#else
    return r != MPI_REQUEST_NULL && r == msc_shared_request;
#endif
}
static inline int64_t msc_w_MPI_Request(MPI_Request h)
{
    return h == MPI_REQUEST_NULL ? 0 : msc_request_shared(h) ? MSC_REQUEST_DONE : msc_hword(&h, sizeof h);
}
MSC_HANDLE_WORD(MPI_Group, MPI_GROUP_NULL)
MSC_HANDLE_WORD(MPI_Op, MPI_OP_NULL)
MSC_HANDLE_WORD(MPI_Message, MPI_MESSAGE_NULL)
MSC_HANDLE_WORD(MPI_Info, MPI_INFO_NULL)
MSC_HANDLE_WORD(MPI_Errhandler, MPI_ERRHANDLER_NULL)
MSC_HANDLE_WORD(MPI_Win, MPI_WIN_NULL)
MSC_HANDLE_WORD(MPI_File, MPI_FILE_NULL)
/* A null handle where one is required: the library's own null handle, or any handle whose bits are all zero, which
 * is no handle on either MPI (a NULL pointer in Open MPI, whose null handles are addresses of objects; 0 in MPICH,
 * whose handles carry a nonzero kind). A program that passes NULL or 0 gets the null-handle finding before MPI
 * crashes or aborts on it. */
#define MSC_IS_NULL(T, h) (msc_w_##T(h) == 0)

/* ---- memcheck (msc_memcheck.c): only in libmpiscope-memcheck.so, built with -DMSC_MEMCHECK; MSC_MC(statements) is
 * nothing in the default build, so the default shim's handlers do not even test a flag for it ---- */
#ifdef MSC_MEMCHECK
#define MSC_MC(...) __VA_ARGS__
void msc_mc_init(void);
void msc_mc_post(msc_call *c, msc_args *a, int rc);
void msc_mc_started(msc_call *c, const MPI_Request *reqs, int n);
/* where: the caller's request variable, which names a request MPI handed out already complete (shared). */
void msc_mc_completed(MPI_Request req, const MPI_Request *where, int freed);
void msc_mc_win_created(MPI_Win win, void *given);
void msc_mc_win_pre(msc_call *c, msc_args *a);
void msc_mc_win_post(msc_call *c, msc_args *a, int rc);
void msc_mc_win_freed(MPI_Win win);
#else
#define MSC_MC(...)
#endif
/* Does [off, off + len) (bytes from a buffer's start) meet a byte of count elements of t? 1 when the layout is
 * unknown (msc_checksum.c; flattens t on first use, so call it once inside MPI before relying on it outside). */
int msc_layout_touches(MPI_Datatype t, int64_t count, int64_t off, int64_t len);
/* The bytes of count elements of t as blocks (offset from the buffer's start, length), adjacent ones merged:
 * their number, or -1 when there are more than max or the layout is unknown (msc_checksum.c). */
int msc_layout_blocks(MPI_Datatype t, int64_t count, int64_t *off, int64_t *len, int max);

/* ---- class handlers (msc_handlers.c): one pre and one post per class of spec/mpi-api.json ----
 * A handler with nothing to do in this build is an empty inline here instead of a call into msc_handlers.c:
 * an opaque call, even to an empty function, costs its call and return and makes the compiler keep the
 * wrapper's call record in memory around it (MPI_Comm_rank paid two of them per call). */
#define MSC_PRE(name) void msc_pre_##name(msc_call *c, msc_args *a);
#define MSC_POST(name) void msc_post_##name(msc_call *c, msc_args *a, int rc);
#define MSC_PRE_NOP(name)                                                                                      \
    static inline void msc_pre_##name(msc_call *c, msc_args *a) { (void)c, (void)a; }
#define MSC_POST_NOP(name)                                                                                     \
    static inline void msc_post_##name(msc_call *c, msc_args *a, int rc) { (void)c, (void)a, (void)rc; }
/* Posts that only the memcheck build has work for (msc_mc_post). */
#ifdef MSC_MEMCHECK
#define MSC_POST_MC(name) MSC_POST(name)
#else
#define MSC_POST_MC(name) MSC_POST_NOP(name)
#endif
#define MSC_CLASS(name) MSC_PRE(name) MSC_POST(name)
MSC_PRE_NOP(init) MSC_POST(init) MSC_CLASS(finalize) MSC_PRE(abort) MSC_POST_NOP(abort)
/* Class other: a wrapper passes NULL for a (see gen/generate.mjs), except MPI_Type_get_contents, whose
 * datatypes out (role types) are references to count (msc_type_contents). */
void msc_type_contents(msc_call *c, const msc_args *a, int rc);
MSC_PRE_NOP(other)
static inline void msc_post_other(msc_call *c, msc_args *a, int rc)
{
    if (a && (c->func == MSC_FN_MPI_Type_get_contents || c->func == MSC_FN_MPI_Type_get_contents_c))
        msc_type_contents(c, a, rc);
}
MSC_CLASS(send) MSC_CLASS(isend) MSC_CLASS(send_init) MSC_CLASS(recv) MSC_PRE(irecv) MSC_POST_MC(irecv)
MSC_PRE(recv_init) MSC_POST_MC(recv_init) MSC_CLASS(sendrecv) MSC_CLASS(sendrecv_replace)
MSC_CLASS(probe) MSC_CLASS(iprobe) MSC_CLASS(mprobe) MSC_CLASS(improbe) MSC_CLASS(mrecv) MSC_PRE(imrecv) MSC_POST_MC(imrecv)
MSC_CLASS(wait) MSC_CLASS(waitall) MSC_CLASS(waitany) MSC_CLASS(waitsome)
MSC_CLASS(test) MSC_CLASS(testall) MSC_CLASS(testany) MSC_CLASS(testsome)
MSC_PRE_NOP(request_get_status) MSC_POST_NOP(request_get_status) MSC_CLASS(request_free) MSC_PRE(cancel)
MSC_POST_NOP(cancel) MSC_CLASS(start) MSC_CLASS(startall)
MSC_PRE(collective) MSC_POST_NOP(collective) MSC_PRE(icollective) MSC_POST_MC(icollective)
MSC_PRE(coll_init) MSC_POST_NOP(coll_init)
MSC_CLASS(comm_create) MSC_CLASS(comm_free) MSC_PRE_NOP(group) MSC_POST_NOP(group) MSC_PRE_NOP(group_free)
MSC_POST_NOP(group_free)
MSC_PRE_NOP(type_create) MSC_POST(type_create) MSC_PRE_NOP(type_commit) MSC_POST(type_commit) MSC_PRE_NOP(type_free)
MSC_POST(type_free) MSC_PRE_NOP(op_create) MSC_POST(op_create) MSC_PRE_NOP(op_free) MSC_POST_NOP(op_free)
MSC_PRE_NOP(buffer_attach) MSC_POST(buffer_attach) MSC_PRE_NOP(buffer_detach) MSC_POST(buffer_detach)
MSC_CLASS(win_create) MSC_CLASS(win_free) MSC_CLASS(win_sync) MSC_PRE(rma) MSC_POST_MC(rma)
#undef MSC_CLASS
#undef MSC_PRE
#undef MSC_POST
#undef MSC_PRE_NOP
#undef MSC_POST_NOP
#undef MSC_POST_MC

#endif
