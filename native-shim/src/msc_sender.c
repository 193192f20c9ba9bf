/* The sender: one thread per rank that drains the ring into WebSocket binary frames, interns call sites
 * (a SITE record before the first record that uses an address), reports drops (LOST), and reads the
 * analyzer's control frames (pause, continue, breakpoints, terminate).
 *
 * Whoever sends holds send_mu: the sender thread while it runs, or an exit path when there is no sender
 * thread (a process that exits or crashes before MPI_Init returned). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "msc_shim.h"

/* The encoder fuzzer builds with a small batch, so that calls larger than a frame come cheap. */
#ifndef MSC_SENDER_BATCH
#define MSC_SENDER_BATCH 1024
#endif
#define BATCH MSC_SENDER_BATCH
/* Room for one batch, the tail of a call that straddles it, and the SITE records in front of them. */
#define FRAME_RECORDS (BATCH * 4 + BATCH * 16)
/* The sender's wait policy (sender_main). The oldest record waits at most FLOW_MS for a fuller frame; the sender
 * looks every SLICE_MS while records wait (IDLE_MS when none do), and sends at a look where the rank has been
 * inside one MPI call for IN_CALL_MS or more; the ring's mark wakes it when FILL_RECORDS wait. LEGACY_FLOW_MS: the
 * bound of the plain timed wait kept for threads other than MPI_Init's calling MPI and for an attached debugger. */
#ifndef MSC_SENDER_FLOW_MS
#define MSC_SENDER_FLOW_MS 32
#endif
#define FLOW_MS MSC_SENDER_FLOW_MS
#define SLICE_MS 4
#define IN_CALL_MS 2
#define FILL_RECORDS BATCH
#define IDLE_MS 10
#define LEGACY_FLOW_MS 4
/* A frame's worst case: the pump sends at a call boundary once a frame has more than FRAME_RECORDS, so one holds
 * at most that, one call's new SITE records and the call itself (a batch is at most FRAME_RECORDS records). */
#define FRAME_BUF_RECORDS (FRAME_RECORDS * 2 + 128)

int msc_world_rank = -1, msc_world_size = -1, msc_thread_level = 0;

static int sock = -1;
static int wake_fd = -1;
static pthread_t thread;
static int thread_started;
static pthread_mutex_t send_mu = PTHREAD_MUTEX_INITIALIZER;
static msc_record *take_buf, *frame_buf;
static int hello_sent;
static char library_version[MPI_MAX_LIBRARY_VERSION_STRING + 1];
static uint64_t lost_reported;
static _Atomic uint64_t sent_head; /* ring positions below this have been sent (or dropped) */
static uint64_t taken;             /* ring positions taken so far; owned by whoever holds send_mu */
/* MPISCOPE_RING_STATS=1: at the END of the stream the rank prints, on stderr, what its transport did (records,
 * frames, the sender's wake-ups, the producers' waits for room): where a slow run under mpiscope spent its time
 * (the ranks waiting for an analyzer that is behind, or not). Counted whether printed or not; none on the
 * application's path. */
static uint64_t stats_since, sender_wakeups, pumps_with_records;
/* Why the sender's looks sent (sender_main): asked (a full ring, a flush, a control text, or the plain timed wait of
 * threads and debuggers), FILL_RECORDS waiting, the oldest record FLOW_MS old, the rank inside a call for a slice. */
static uint64_t sent_asked, sent_full, sent_aged, sent_in_call;

/* Requests to the sender thread: END (after MPI_Finalize the connection stays open, so that calls made after
 * it still reach the analyzer) and close. req_gen counts requests, done_gen the ones carried out. */
static _Atomic int req_close, terminate_requested;
static _Atomic uint32_t req_gen, done_gen;
static _Atomic int end_sent, closed;
static int end_how, end_code;

/* ---- control text queue (pause acknowledgements, each up to 12 KiB with its backtrace) ---- */
static pthread_mutex_t text_mu = PTHREAD_MUTEX_INITIALIZER;
static char text_q[64 * 1024];
static size_t text_len;

void msc_sender_queue_text(const char *text)
{
    size_t n = strlen(text) + 1;
    pthread_mutex_lock(&text_mu);
    if (text_len + n <= sizeof text_q) {
        memcpy(text_q + text_len, text, n);
        text_len += n;
    }
    pthread_mutex_unlock(&text_mu);
    msc_sender_wake();
}

/* Set with every msc_sender_wake: the sender sends at once. A nudge (the ring's mark) only makes it look. */
static _Atomic int wake_urgent;

void msc_sender_wake(void)
{
    atomic_store_explicit(&wake_urgent, 1, memory_order_relaxed);
    msc_sender_nudge();
}

void msc_sender_nudge(void)
{
    if (wake_fd >= 0) {
        uint64_t one = 1;
        ssize_t k = write(wake_fd, &one, sizeof one);
        (void)k;
    }
}

/* ---- call-site interning: a set of addresses owned by the sender ---- */
static uint64_t *sites;
static size_t sites_cap, sites_n;

static int site_insert(uint64_t a)
{
    if (sites_n * 4 >= sites_cap * 3) {
        size_t ncap = sites_cap ? sites_cap * 2 : 4096;
        uint64_t *n = calloc(ncap, sizeof *n);
        if (!n) return 0; /* out of memory: behave as if already interned rather than repeat SITEs */
        for (size_t i = 0; i < sites_cap; i++) {
            if (!sites[i]) continue;
            size_t j = (sites[i] * 0x9E3779B97F4A7C15ull) >> 20 & (ncap - 1);
            while (n[j]) j = (j + 1) & (ncap - 1);
            n[j] = sites[i];
        }
        free(sites);
        sites = n;
        sites_cap = ncap;
    }
    size_t j = (a * 0x9E3779B97F4A7C15ull) >> 20 & (sites_cap - 1);
    while (sites[j]) {
        if (sites[j] == a) return 0;
        j = (j + 1) & (sites_cap - 1);
    }
    sites[j] = a;
    sites_n++;
    return 1;
}

/* Lays out words into a head record and EXT records at out; returns the number of records. */
static int layout(msc_record *out, int kind, int flags, int func, uint32_t seq, uint64_t time, uint64_t site,
                  const int64_t *w, int nw)
{
    int nrec = 1 + (nw > MSC_HEAD_WORDS ? (nw - MSC_HEAD_WORDS + MSC_EXT_WORDS - 1) / MSC_EXT_WORDS : 0);
    memset(out, 0, (size_t)nrec * sizeof *out);
    out[0].head.kind = (uint8_t)kind;
    out[0].head.flags = (uint8_t)flags;
    out[0].head.func = (uint16_t)func;
    out[0].head.seq = seq;
    out[0].head.time = time;
    out[0].head.site = site;
    for (int r = 1; r < nrec; r++) {
        out[r].ext.kind = MSC_KIND_EXT;
        out[r].ext.func = (uint16_t)func;
        out[r].ext.seq = seq;
    }
    for (int i = 0; i < nw; i++) {
        if (i < MSC_HEAD_WORDS)
            out[0].head.w[i] = w[i];
        else
            out[1 + (i - MSC_HEAD_WORDS) / MSC_EXT_WORDS].ext.w[(i - MSC_HEAD_WORDS) % MSC_EXT_WORDS] = w[i];
    }
    return nrec;
}

/* SITE records for one return address: module path and offset from its load bias (what addr2line takes). */
static int send_frame(int opcode, void *p, size_t n);

static int site_records(msc_record *out, const msc_record_head *h)
{
    int64_t w[2 + 4096 / 8 + 1];
    memset(w, 0, sizeof w);
    char path[4096];
    uint64_t offset;
    msc_addr_module(h->site, &offset, path, sizeof path);
    /* A module seen for the first time is described to the analyzer before its first SITE (msc_sites.c). */
    char module_text[1400];
    if (msc_sites_note(h->site, offset, path, module_text, sizeof module_text))
        send_frame(1, module_text, strlen(module_text));
    w[0] = (int64_t)h->site;
    w[1] = (int64_t)offset;
    size_t len = strlen(path) + 1;
    memcpy(&w[2], path, len);
    return layout(out, MSC_KIND_SITE, 0, h->func, h->seq, h->time, h->site, w, 2 + (int)((len + 7) / 8));
}

static void json_escape(const char *in, char *out, size_t cap)
{
    size_t o = 0;
    for (; *in && o + 7 < cap; in++) {
        unsigned char ch = (unsigned char)*in;
        if (ch == '"' || ch == '\\') {
            out[o++] = '\\';
            out[o++] = (char)ch;
        } else if (ch < 0x20) {
            out[o++] = ' ';
        } else {
            out[o++] = (char)ch;
        }
    }
    while (o > 0 && out[o - 1] == ' ') o--;
    out[o] = 0;
}

static void disconnect_locked(void)
{
    if (sock >= 0) msc_ws_close(sock);
    sock = -1;
    msc_spill_close();
    atomic_store(&msc_connected, 0);
    /* The analyzer is gone: the application goes on as if the shim were not there. */
    atomic_store(&msc_state, MSC_STATE_OFF);
    msc_ring_wake_all();
    msc_control_pause(0);
}

/* Frames written so far: the progress a bounded wait for the sender extends its deadline on. */
static _Atomic uint64_t frames_sent;

/* Where the stream goes: the analyzer's socket, or the spill file once the analyzer is gone (msc_spill.c). */
static int live(void) { return sock >= 0 || msc_spill_active(); }

/* The connection broke without the analyzer saying goodbye (it was killed, its host went away): spill what
 * follows when the session asked for it, else become a pass-through. The ring, the state and msc_connected
 * stay as they are while spilling: producers go on recording and waiting for room as before. */
static void lost_locked(const char *why)
{
    if (sock >= 0) msc_ws_close(sock);
    sock = -1;
    if (!msc_spill_begin(msc_world_rank, why)) disconnect_locked();
}

static int send_frame(int opcode, void *p, size_t n)
{
    if (msc_spill_active()) {
        if (msc_spill_write(opcode, p, n)) {
            atomic_fetch_add_explicit(&frames_sent, 1, memory_order_relaxed);
            return 0;
        }
        /* The spill reached its bound (or the disk refused it): the rest of the run goes unrecorded. */
        disconnect_locked();
        return -1;
    }
    if (sock < 0) return -1;
    /* Kept before it is sent: a frame the socket took may still die with the analyzer. */
    msc_spill_keep(opcode, p, n);
    /* The sender thread waits for an analyzer that is behind; a rank's own thread (exit paths) keeps the bound. */
    int patient = thread_started && pthread_equal(pthread_self(), thread);
    if (msc_ws_send(sock, opcode, p, n, patient) != 0) {
        lost_locked("its connection broke");
        return msc_spill_active() ? 0 : -1;
    }
    atomic_fetch_add_explicit(&frames_sent, 1, memory_order_relaxed);
    return 0;
}

static void send_hello_locked(void)
{
    char host[256] = "", esc_host[300], esc_ver[600], msg[1200];
    /* MPICH's version string is long (configure options): the first line or so says enough. */
    gethostname(host, sizeof host - 1);
    json_escape(host, esc_host, sizeof esc_host);
    char *cfg = strstr(library_version, "MPICH configure");
    if (cfg) *cfg = 0;
    json_escape(library_version, esc_ver, sizeof esc_ver);
#if defined(OPEN_MPI)
    const char *lib = "openmpi";
#elif defined(MPICH)
    const char *lib = "mpich";
#else
    const char *lib = "unknown";
#endif
    int n = snprintf(msg, sizeof msg,
                     "{\"type\":\"hello\",\"version\":%d,\"rank\":%d,\"size\":%d,\"pid\":%d,\"host\":\"%s\","
                     "\"library\":\"%s\",\"libraryVersion\":\"%s\",\"threadLevel\":%d}",
                     MSC_PROTOCOL_VERSION, msc_world_rank, msc_world_size, (int)getpid(), esc_host, lib, esc_ver,
                     msc_thread_level);
    hello_sent = 1;
    send_frame(1, msg, (size_t)n);
}

/* The SITE records of one batch's new call sites, before they go into its frame: where each group goes (the
 * index of the record it precedes) and its length. Grown on demand; a batch has at most FRAME_RECORDS records. */
#define SITE_RECORDS_MAX (1 + (2 + 4096 / 8 - MSC_HEAD_WORDS + MSC_EXT_WORDS - 1) / MSC_EXT_WORDS)
static msc_record *site_buf;
static int site_cap;
static int site_at[FRAME_RECORDS], site_len[FRAME_RECORDS];

static int site_room(int records)
{
    if (records <= site_cap) return 1;
    int ncap = site_cap ? site_cap : 1024;
    while (ncap < records) ncap *= 2;
    msc_record *nb = realloc(site_buf, (size_t)ncap * sizeof *nb);
    if (!nb) return 0;
    site_buf = nb;
    site_cap = ncap;
    return 1;
}

/* Where a frame of up to `records` records is built: in place in the spill's history when there is one, so that
 * keeping the frame costs no copy (it doubled the sender's instructions: bench/spill-cost), else frame_buf. Never
 * more than frame_buf holds: the pump sends a frame before it outgrows that (FRAME_BUF_RECORDS). */
static msc_record *frame_area(int records)
{
    if (records > FRAME_BUF_RECORDS) records = FRAME_BUF_RECORDS;
    msc_record *p = msc_spill_area((size_t)records * sizeof(msc_record));
    return p ? p : frame_buf;
}

/* Sends what is committed in the ring, then queued control texts. Returns the number of ring records sent. */
static int pump_locked(void)
{
    if (!live()) return 0;
    if (!hello_sent) send_hello_locked();
    char texts[sizeof text_q];
    size_t tlen;
    /* Texts are taken before the records: a pause acknowledgement is queued after its ENTER was committed,
     * so the ENTER goes out first. */
    pthread_mutex_lock(&text_mu);
    tlen = text_len;
    memcpy(texts, text_q, tlen);
    text_len = 0;
    pthread_mutex_unlock(&text_mu);

    int total = 0;
    for (;;) {
        int n = msc_ring_take(take_buf, BATCH, FRAME_RECORDS);
        /* First the SITE records of the call sites seen for the first time (rare after the start; a new module's
         * text frame goes out here, before the binary frame that names it), so that the frame's size is known
         * before it is built. */
        int nsites = 0, site_total = 0;
        for (int i = 0; i < n; i++) {
            const msc_record_head *h = &take_buf[i].head;
            if ((h->kind == MSC_KIND_ENTER || h->kind == MSC_KIND_FINDING) && h->site && site_insert(h->site)) {
                if (!site_room(site_total + SITE_RECORDS_MAX)) continue; /* out of memory: the site goes unnamed */
                site_at[nsites] = i;
                site_len[nsites] = site_records(&site_buf[site_total], h);
                site_total += site_len[nsites++];
            }
        }
        uint64_t dropped = msc_ring_dropped();
        /* Not inside a call that straddles two frames (one larger than a frame): the analyzer would read the
         * LOST record as the call cut short and close the connection. It goes after the call instead. */
        int lost = dropped != lost_reported && !msc_ring_mid_call();
        /* The frame is built where the spill's history keeps it (no copy to keep it), else in frame_buf. */
        int left = n + site_total + lost;
        msc_record *out = frame_area(left);
        int f = 0, s = 0, so = 0;
        if (nsites == 0 && out == frame_buf) {
            /* No new site and no history to build the frame in: it goes out from where the ring's records were
             * taken (take_buf has room for the LOST record after them). */
            out = take_buf;
            f = n;
        } else if (n + site_total <= FRAME_RECORDS) {
            /* The common case, one frame: the records copied in runs between the SITE groups. */
            int from = 0;
            for (; s < nsites; s++) {
                int at = site_at[s];
                memcpy(&out[f], &take_buf[from], (size_t)(at - from) * sizeof(msc_record));
                f += at - from;
                memcpy(&out[f], &site_buf[so], (size_t)site_len[s] * sizeof(msc_record));
                f += site_len[s];
                so += site_len[s];
                from = at;
            }
            memcpy(&out[f], &take_buf[from], (size_t)(n - from) * sizeof(msc_record));
            f += n - from;
        } else {
            for (int i = 0; i < n; i++) {
                int extra = s < nsites && site_at[s] == i ? site_len[s] : 0;
                /* Many new call sites can outgrow the frame buffer: send what is there, at a call boundary. */
                if (f > FRAME_RECORDS && take_buf[i].head.kind != MSC_KIND_EXT) {
                    if (send_frame(2, out, (size_t)f * sizeof(msc_record)) != 0) return total;
                    left -= f;
                    f = 0;
                    out = frame_area(left);
                }
                if (extra) {
                    memcpy(&out[f], &site_buf[so], (size_t)extra * sizeof(msc_record));
                    f += extra;
                    so += extra;
                    s++;
                }
                out[f++] = take_buf[i];
            }
        }
        taken += (uint64_t)n;
        if (lost) {
            int64_t w = (int64_t)(dropped - lost_reported);
            f += layout(&out[f], MSC_KIND_LOST, 0, 0, atomic_load(&msc_seq), msc_now(), 0, &w, 1);
            lost_reported = dropped;
        }
        if (f && send_frame(2, out, (size_t)f * sizeof(msc_record)) != 0) return total;
        total += n;
        atomic_store(&sent_head, taken);
        if (n < BATCH) break;
    }
    for (size_t o = 0; o < tlen && live();) {
        size_t l = strlen(texts + o);
        send_frame(1, texts + o, l);
        o += l + 1;
    }
    return total;
}

static void print_stats(void)
{
    const char *e = getenv("MPISCOPE_RING_STATS");
    if (!e || strcmp(e, "1") != 0) return;
    uint64_t waits, wait_ns;
    msc_ring_stats(&waits, &wait_ns);
    /* The sender thread's CPU time: on a machine whose cores the ranks fill, it is taken from them. */
    double cpu_ms = -1;
    clockid_t cid;
    struct timespec ts;
    if (thread_started && pthread_getcpuclockid(thread, &cid) == 0 && clock_gettime(cid, &ts) == 0)
        cpu_ms = (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
    fprintf(stderr,
            "mpiscope: rank %d transport over %.1f ms: %llu records in %llu frames, sender woke %llu times (%llu found "
            "records) and used %.1f ms of CPU; the ring was full %llu times, the rank waited %.1f ms for room; %llu "
            "records dropped; the sender sent when asked %llu times, %llu with a frame's worth waiting, %llu for the "
            "oldest record's age, %llu for a rank inside a call\n",
            msc_world_rank, (double)(msc_now() - stats_since) / 1e6, (unsigned long long)taken,
            (unsigned long long)atomic_load(&frames_sent), (unsigned long long)sender_wakeups,
            (unsigned long long)pumps_with_records, cpu_ms, (unsigned long long)waits, (double)wait_ns / 1e6,
            (unsigned long long)msc_ring_dropped(), (unsigned long long)sent_asked, (unsigned long long)sent_full,
            (unsigned long long)sent_aged, (unsigned long long)sent_in_call);
}

/* Sends END unless already sent, and with close_after closes the connection. */
static void finish_locked(int close_after)
{
    /* Drain until the ring is empty; a slot reserved but never committed (its thread crashed mid-write)
     * must not hold the END back for long. */
    uint64_t deadline = msc_now() + 200000000u;
    while (live()) {
        int n = pump_locked();
        if (taken >= msc_ring_head()) break;
        if (n == 0) {
            if (msc_now() > deadline) break;
            struct timespec ts = { 0, 1000000 };
            nanosleep(&ts, NULL);
        }
    }
    if (live() && !atomic_load(&end_sent)) {
        int64_t w[4] = { end_how, end_code, (int64_t)msc_ring_dropped(), (int64_t)atomic_load(&msc_seq) };
        msc_record r[1];
        layout(r, MSC_KIND_END, 0, 0, atomic_load(&msc_seq), msc_now(), 0, w, 4);
        send_frame(2, r, sizeof r);
        atomic_store(&end_sent, 1);
        print_stats();
    }
    if (close_after && sock >= 0) {
        unsigned char close_payload[2] = { 0x03, 0xe8 }; /* 1000: normal closure */
        send_frame(8, close_payload, 2);
        /* Close without waiting for the server's close frame: we are exiting, and the analyzer has END. */
        msc_ws_close(sock);
        sock = -1;
    }
    if (close_after) msc_spill_close();
    if (close_after || !live()) {
        atomic_store(&msc_connected, 0);
        msc_ring_wake_all();
        atomic_store(&closed, 1);
        msc_control_pause(0);
    }
}

/* ---- control frames from the analyzer ---- */
static int json_type_is(const char *t, size_t len, const char *type)
{
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\"", type);
    const char *k = memmem(t, len, "\"type\"", 6);
    if (!k) return 0;
    const char *v = memmem(k + 6, len - (size_t)(k + 6 - t), pat, strlen(pat));
    /* The value must follow the key directly (only blanks and the colon between them). */
    if (!v) return 0;
    for (const char *p = k + 6; p < v; p++)
        if (*p != ':' && *p != ' ') return 0;
    return 1;
}

static void on_text(const char *t, size_t len)
{
    if (json_type_is(t, len, "pause")) {
        msc_control_pause(1);
    } else if (json_type_is(t, len, "continue")) {
        msc_control_continue();
    } else if (json_type_is(t, len, "backtrace")) {
        msc_control_probe_request();
    } else if (json_type_is(t, len, "resolve")) {
        msc_sites_resolve_request(t, len);
    } else if (json_type_is(t, len, "terminate")) {
        atomic_store(&terminate_requested, 1);
    } else if (json_type_is(t, len, "breakpoints")) {
        unsigned char fns[MSC_FN_COUNT] = { 0 };
        const char *arr = memmem(t, len, "\"functions\"", 11);
        if (arr) {
            const char *end = t + len;
            for (const char *p = arr + 11; p < end && *p != ']'; p++) {
                if (*p != '"') continue;
                const char *q = memchr(p + 1, '"', (size_t)(end - p - 1));
                if (!q) break;
                int id = msc_func_id(p + 1, (size_t)(q - p - 1));
                if (id >= 0) fns[id] = 1;
                p = q;
            }
        }
        msc_control_breakpoints(fns);
    }
}

static void send_text_locking(const char *text)
{
    pthread_mutex_lock(&send_mu);
    send_frame(1, (void *)text, strlen(text));
    pthread_mutex_unlock(&send_mu);
}

/* Whether the rank is inside an MPI call by its newest record: anything but an EXIT (a blocking call's ENTER, a
 * FINDING before it, a description) says so. */
static int in_call(int kind) { return kind >= 0 && kind != MSC_KIND_EXIT && kind != MSC_KIND_COMPLETE_EXIT; }

static void *sender_main(void *arg)
{
    (void)arg;
    int timeout_ms = 1, legacy_ms = 1, idle_ms = SLICE_MS;
    /* When the oldest record not sent yet was first seen (0: none). */
    uint64_t pending_since = 0;
    for (;;) {
        struct pollfd p[2] = { { sock, POLLIN, 0 }, { wake_fd, POLLIN, 0 } };
        poll(p, 2, timeout_ms);
        msc_ring_arm(UINT64_MAX);
        if (p[1].revents & POLLIN) {
            uint64_t v;
            ssize_t k = read(wake_fd, &v, sizeof v);
            (void)k;
        }
        int urgent = atomic_exchange_explicit(&wake_urgent, 0, memory_order_relaxed);
        pthread_mutex_lock(&send_mu);
        /* TLS may hold a control frame it already decrypted, which poll() does not see. */
        if (sock >= 0 && ((p[0].revents & (POLLIN | POLLHUP | POLLERR)) || msc_ws_pending())) {
            /* A close frame: the analyzer is alive and ended this connection on purpose (nothing to spill). */
            int r = msc_ws_poll_read(sock, on_text);
            if (r == MSC_WS_CLOSED)
                disconnect_locked();
            else if (r != 0)
                lost_locked("its connection dropped");
        }
        msc_control_probe_poll();
        /* While records trickle in, wait for fuller frames: the analyzer pays per frame (a wake-up, a socket read, a
         * WebSocket parse, a decode call: ~20-30 us, bench/transport) and this thread per send. A look sends when
         * asked (a full ring, a flush, a control text), when FILL_RECORDS wait (the producer that reaches the mark
         * wakes this thread: a flooding rank never waits for the timer), when the oldest record waited FLOW_MS,
         * or when the rank's newest record is a call's ENTER at least IN_CALL_MS old: a rank blocked in a call has
         * its ENTER at the analyzer within IN_CALL_MS + SLICE_MS, for live deadlock detection and the debugger.
         * With threads other than MPI_Init's calling MPI (the newest record is then one thread's) or a debugger
         * attached, the plain timed wait of before: every look sends, the wait doubling up to LEGACY_FLOW_MS. */
        int legacy = atomic_load_explicit(&msc_other_threads, memory_order_relaxed) ||
                     atomic_load_explicit(&msc_attention, memory_order_relaxed);
        uint64_t now = msc_now(), head = msc_ring_head(), stamp = 0;
        if (head == taken)
            pending_since = 0;
        else if (!pending_since)
            pending_since = now;
        int kind = head != taken ? msc_ring_newest(head, &stamp) : -1;
        int send = 1;
        if (legacy || urgent)
            sent_asked++;
        else if (head - taken >= FILL_RECORDS)
            sent_full++;
        else if (pending_since && now - pending_since >= (uint64_t)FLOW_MS * 1000000u)
            sent_aged++;
        else if (in_call(kind) &&
                 (int64_t)(msc_clock_peek_ns(msc_stamp()) - msc_clock_peek_ns(stamp)) >= IN_CALL_MS * 1000000)
            sent_in_call++;
        else
            send = 0;
        int n = send ? pump_locked() : 0;
        sender_wakeups++;
        if (n) pumps_with_records++;
        uint32_t gen = atomic_load(&req_gen);
        if (gen != atomic_load(&done_gen)) {
            finish_locked(atomic_load(&req_close));
            atomic_store(&done_gen, gen);
        }
        if (!live()) {
            pthread_mutex_unlock(&send_mu);
            break;
        }
        if (send) pending_since = msc_ring_head() != taken ? now : 0;
        uint64_t left = taken;
        pthread_mutex_unlock(&send_mu);
        msc_sites_work(send_text_locking);
        if (atomic_load(&terminate_requested)) {
            /* The analyzer ends the job: leave like a killed process would, without hanging on MPI. */
            pthread_mutex_lock(&send_mu);
            disconnect_locked();
            pthread_mutex_unlock(&send_mu);
            kill(getpid(), SIGTERM);
            struct timespec ts = { 2, 0 };
            nanosleep(&ts, NULL);
            kill(getpid(), SIGKILL);
            break;
        }
        if (legacy) {
            /* A take of fewer than a quarter frame doubles the wait, up to LEGACY_FLOW_MS; a fuller one goes back to
             * 1 ms; 10 ms when idle. */
            if (n == 0)
                legacy_ms = legacy_ms < 10 ? legacy_ms * 2 : 10;
            else if (n < BATCH / 4)
                legacy_ms = legacy_ms * 2 < LEGACY_FLOW_MS ? legacy_ms * 2 : LEGACY_FLOW_MS;
            else
                legacy_ms = 1;
            timeout_ms = legacy_ms;
            continue;
        }
        legacy_ms = 1;
        /* A slice while records wait; when none do, the wait doubles up to IDLE_MS (an idle rank should cost next to
         * nothing); never past the oldest record's FLOW_MS. The mark wakes this thread sooner when FILL_RECORDS
         * wait. No look more often than SLICE_MS and no wake-up for a quiet rank's next record: on an
         * oversubscribed machine every wake-up of this thread can take the rank's core, and one as the rank entered
         * MPI, where its peers wait for it, made LAMMPS's ranks spin up to a third longer (native-shim/README.md). */
        int deadline_ms = FLOW_MS;
        if (pending_since) {
            uint64_t age = (msc_now() - pending_since) / 1000000u;
            deadline_ms = age < FLOW_MS ? FLOW_MS - (int)age : 0;
        }
        if (msc_ring_head() != left)
            idle_ms = SLICE_MS;
        else
            idle_ms = idle_ms * 2 < IDLE_MS ? idle_ms * 2 : IDLE_MS;
        timeout_ms = idle_ms < deadline_ms ? idle_ms : deadline_ms;
        uint64_t at = left + FILL_RECORDS;
        msc_ring_arm(at);
        /* A reservation that passed the mark before it was armed woke nobody: look again at once. */
        if (msc_ring_head() > at) timeout_ms = 0;
    }
    return NULL;
}

/* The rank and size the launcher gave this process (Open MPI, Hydra's PMI, PMIx, Slurm's srun); -1 when it
 * was not started by a launcher. Known before MPI_Init, so the hello can be said from the start. */
int msc_launcher_rank(void)
{
    static const char *const names[] = { "OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", "SLURM_PROCID" };
    for (unsigned i = 0; i < sizeof names / sizeof names[0]; i++) {
        const char *v = getenv(names[i]);
        if (v && *v) return atoi(v);
    }
    return -1;
}

static int launcher_size(void)
{
    static const char *const names[] = { "OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_NTASKS", "SLURM_NPROCS" };
    for (unsigned i = 0; i < sizeof names / sizeof names[0]; i++) {
        const char *v = getenv(names[i]);
        if (v && *v) return atoi(v);
    }
    return 1; /* no launcher: a singleton */
}

int msc_sender_connect(const char *url, const char *token, char *why, size_t whylen)
{
    int r = msc_launcher_rank();
    msc_world_rank = r < 0 ? 0 : r;
    msc_world_size = launcher_size();
    int vlen = 0;
    PMPI_Get_library_version(library_version, &vlen);

    const char *t = getenv("MPISCOPE_CONNECT_TIMEOUT_MS");
    sock = msc_ws_open(url, token, t ? atoi(t) : 2000, why, whylen);
    if (sock < 0) return 0;
    take_buf = malloc((FRAME_RECORDS + 1) * sizeof(msc_record));
    frame_buf = malloc(FRAME_BUF_RECORDS * sizeof(msc_record));
    wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (!take_buf || !frame_buf || wake_fd < 0) {
        msc_ws_close(sock);
        sock = -1;
        return 0;
    }
    atomic_store(&msc_connected, 1);
    stats_since = msc_now();
    /* The hello goes now, not with the first records: the analyzer then knows this rank started even if
     * none of its MPI calls ever reaches the shim (a binding that bypasses the wrappers). */
    pthread_mutex_lock(&send_mu);
    send_hello_locked();
    pthread_mutex_unlock(&send_mu);
    if (sock < 0) {
        snprintf(why, whylen, "the connection closed during the hello");
        return 0;
    }
    msc_control_breakpoints_from_env();
    return 1;
}

void msc_sender_start(void)
{
    if (thread_started || sock < 0) return;
    msc_control_probe_install();
    sigset_t all, old;
    sigfillset(&all);
    /* The sender takes no signal: crash signals must reach the application thread that caused them. */
    pthread_sigmask(SIG_SETMASK, &all, &old);
    if (pthread_create(&thread, NULL, sender_main, NULL) == 0) thread_started = 1;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
}

static void sleep_ms(int ms)
{
    struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
    nanosleep(&ts, NULL);
}

/* Takes send_mu within the deadline without blocking forever (an exit path must not hang). */
static int lock_until(uint64_t deadline)
{
    while (pthread_mutex_trylock(&send_mu) != 0) {
        if (msc_now() > deadline) return 0;
        sleep_ms(1);
    }
    return 1;
}

void msc_sender_flush(int timeout_ms)
{
    uint64_t target = msc_ring_head();
    uint64_t deadline = msc_now() + (uint64_t)timeout_ms * 1000000u;
    if (thread_started) {
        msc_sender_wake();
        while (atomic_load(&sent_head) < target && atomic_load(&msc_connected) && msc_now() < deadline) sleep_ms(1);
        return;
    }
    if (lock_until(deadline)) {
        pump_locked();
        pthread_mutex_unlock(&send_mu);
    }
}

void msc_sender_finish(int how, int code, int close_after, int timeout_ms)
{
    static _Atomic int claimed;
    uint64_t deadline = msc_now() + (uint64_t)timeout_ms * 1000000u;
    if (atomic_load(&closed)) return;
    /* The first ending names how the rank ended; a later one (exit after MPI_Finalize) only closes. */
    if (!atomic_exchange(&claimed, 1)) {
        end_how = how;
        end_code = code;
    }
    if (close_after) atomic_store(&req_close, 1);
    if (thread_started && !pthread_equal(pthread_self(), thread) && atomic_load(&msc_connected)) {
        uint32_t gen = atomic_fetch_add(&req_gen, 1) + 1;
        msc_sender_wake();
        /* At MPI_Finalize and exit, a slow analyzer that still takes frames is waited for (the timeout counts
         * from the last frame written): the end of the stream is not dropped because the analyzer is behind.
         * A crash or an abort keeps the plain bound. */
        int extend = how == MSC_END_FINALIZED || how == MSC_END_EXIT;
        uint64_t seen = atomic_load(&frames_sent);
        while ((int32_t)(atomic_load(&done_gen) - gen) < 0 && atomic_load(&msc_connected)) {
            uint64_t now = msc_now();
            if (now >= deadline) {
                uint64_t f = atomic_load(&frames_sent);
                if (!extend || f == seen) break;
                seen = f;
                deadline = now + (uint64_t)timeout_ms * 1000000u;
            }
            sleep_ms(1);
        }
    } else if (lock_until(deadline)) {
        finish_locked(close_after);
        pthread_mutex_unlock(&send_mu);
    }
    if (close_after) atomic_store(&msc_state, MSC_STATE_OFF);
}

/* After fork the child has no sender thread and must not write into the parent's connection. */
void msc_sender_forget(void)
{
    if (sock >= 0) msc_ws_close(sock);
    sock = -1;
    msc_spill_forget();
    thread_started = 0;
    atomic_store(&msc_connected, 0);
}

#ifdef MSC_FUZZ
/* The encoder fuzzer (native-shim/fuzz/) drains the ring through this very sender into a socket of its own
 * (no handshake, no thread: it pumps with msc_sender_flush). Not in the shim's build. */
int msc_sender_attach_fd(int fd, int rank, int size)
{
    msc_world_rank = rank;
    msc_world_size = size;
    take_buf = malloc((FRAME_RECORDS + 1) * sizeof(msc_record));
    frame_buf = malloc(FRAME_BUF_RECORDS * sizeof(msc_record));
    if (!take_buf || !frame_buf) return 0;
    sock = fd;
    atomic_store(&msc_connected, 1);
    return 1;
}
#endif
