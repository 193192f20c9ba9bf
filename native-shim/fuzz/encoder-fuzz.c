/* libFuzzer target for the shim's record encoder: the ring's writers (msc_emit with words and arrays,
 * msc_emit_pair for a call's ENTER, COMPLETE and EXIT or ENTER and COMPLETE_EXIT, msc_emit_completes), the
 * sender's frame building (batches, SITE records before the first record of a call site, module texts, frames cut
 * at call boundaries) and the WebSocket framing, all of it the shim's own code, linked from native-shim/src.
 *
 * Each input is a little program of operations; the harness runs them, drains the ring through the sender into a
 * socketpair, reads the frames back as the analyzer would and checks them against a model written here from the
 * record layout (native-shim/spec/records.json), independent of the encoder: every record present once, in
 * order, with its words, array counts and zero padding; each binary frame whole records and never starting
 * inside a call; a SITE record before the first ENTER or FINDING of each site; no LOST. A mismatch aborts (a
 * crash for libFuzzer), as do AddressSanitizer and UndefinedBehaviorSanitizer reports.
 *
 * Built by native-shim/fuzz/build.sh; run by bench/fuzz (10^6 inputs) and the native tier (a few seconds). */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "msc_shim.h"

int msc_sender_attach_fd(int fd, int rank, int size);
uint64_t msc_ring_tail(void);

#define RING_RECORDS (1u << 16)

/* ---- input reader: what runs out reads as zeros ---- */
typedef struct {
    const uint8_t *p;
    size_t n;
} input;

static uint64_t take(input *in, int bytes)
{
    uint64_t v = 0;
    for (int i = 0; i < bytes; i++) {
        uint64_t b = 0;
        if (in->n) {
            b = *in->p++;
            in->n--;
        }
        v |= b << (8 * i);
    }
    return v;
}

/* ---- the model: records expected, in order ---- */
static msc_record *want;
static size_t want_n, want_cap;

static msc_record *want_add(void)
{
    if (want_n == want_cap) {
        want_cap = want_cap ? want_cap * 2 : 4096;
        want = realloc(want, want_cap * sizeof *want);
        if (!want) abort();
    }
    msc_record *r = &want[want_n++];
    memset(r, 0, sizeof *r);
    return r;
}

/* A head record and EXT records holding words, as records.json lays them out: five words in the head, seven in
 * each EXT, the last record padded with zeros. */
static void want_call(int kind, int flags, int func, uint32_t seq, uint64_t site, const int64_t *w, size_t nw)
{
    msc_record *h = want_add();
    h->head.kind = (uint8_t)kind;
    h->head.flags = (uint8_t)flags;
    h->head.func = (uint16_t)func;
    h->head.seq = seq;
    h->head.site = site;
    size_t i = 0;
    for (; i < nw && i < MSC_HEAD_WORDS; i++) h->head.w[i] = w[i];
    while (i < nw) {
        msc_record *e = want_add();
        e->ext.kind = MSC_KIND_EXT;
        e->ext.func = (uint16_t)func;
        e->ext.seq = seq;
        for (int k = 0; k < MSC_EXT_WORDS && i < nw; k++) e->ext.w[k] = w[i++];
    }
}

/* Format 2's halves (records.json): a signed 32-bit value in the low or the high half of a word. */
static int64_t halves(int64_t lo, int64_t hi)
{
    uint64_t l = (uint64_t)lo & 0xffffffffu, h = (uint64_t)hi & 0xffffffffu;
    return (int64_t)(l | h << 32);
}

/* A packed COMPLETE (records.json COMPLETE flags bit3) of the six words w: one record, its fifth word 0. */
static void want_complete(int flags, int func, uint32_t seq, uint64_t site, const int64_t *w)
{
    int64_t p[5] = { w[0], halves(w[1], w[2]), w[3], halves(w[4], w[5]), 0 };
    want_call(MSC_KIND_COMPLETE, flags | 8, func, seq, site, p, 5);
}

/* The words of a call with arrays: its words, then per array its count (unless raw) and elements. */
static int64_t *flat;
static size_t flat_cap;

static size_t flatten(const int64_t *w, int nw, const msc_arr *arr, int narr)
{
    size_t need = (size_t)nw;
    for (int j = 0; j < narr; j++) need += 1 + (size_t)arr[j].n;
    if (need > flat_cap) {
        flat_cap = need * 2;
        flat = realloc(flat, flat_cap * sizeof *flat);
        if (!flat) abort();
    }
    size_t n = 0;
    for (int j = 0; j < nw; j++) flat[n++] = w[j];
    for (int j = 0; j < narr; j++) {
        if (!(arr[j].kind & MSC_ARR_RAW)) flat[n++] = arr[j].n;
        for (int i = 0; i < arr[j].n; i++) {
            int64_t v;
            switch (arr[j].kind & 0xf) {
            case MSC_ARR_I64: v = ((const int64_t *)arr[j].ptr)[i]; break;
            case MSC_ARR_REQUEST: {
                MPI_Request r = ((const MPI_Request *)arr[j].ptr)[i];
                v = r == MPI_REQUEST_NULL ? 0 : msc_request_shared(r) ? MSC_REQUEST_DONE : msc_hword(&r, sizeof r);
                break;
            }
            case MSC_ARR_DATATYPE: {
                MPI_Datatype t = ((const MPI_Datatype *)arr[j].ptr)[i];
                v = t == MPI_DATATYPE_NULL ? 0 : msc_hword(&t, sizeof t);
                break;
            }
            default: v = ((const int *)arr[j].ptr)[i];
            }
            flat[n++] = v;
        }
    }
    return n;
}

/* ---- the analyzer's end of the socket: a reader thread gathers bytes, the checker parses them ---- */
static int peer = -1;
static pthread_mutex_t rx_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t rx_cv = PTHREAD_COND_INITIALIZER;
static uint8_t *rx;
static size_t rx_len, rx_cap;

static void *reader(void *arg)
{
    (void)arg;
    uint8_t buf[1 << 16];
    for (;;) {
        ssize_t k = read(peer, buf, sizeof buf);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) return NULL;
        pthread_mutex_lock(&rx_mu);
        if (rx_len + (size_t)k > rx_cap) {
            rx_cap = (rx_len + (size_t)k) * 2;
            rx = realloc(rx, rx_cap);
            if (!rx) abort();
        }
        memcpy(rx + rx_len, buf, (size_t)k);
        rx_len += (size_t)k;
        pthread_cond_signal(&rx_cv);
        pthread_mutex_unlock(&rx_mu);
    }
}

#define FAIL(...)                                                                                                      \
    do {                                                                                                               \
        fprintf(stderr, "encoder-fuzz: " __VA_ARGS__);                                                                 \
        fputc('\n', stderr);                                                                                           \
        abort();                                                                                                       \
    } while (0)

/* Sites that have had their SITE record; the sender keeps its own set, for the whole process, as this does. */
static uint64_t *sites_seen;
static size_t sites_n, sites_cap;

static int site_known(uint64_t s)
{
    for (size_t i = 0; i < sites_n; i++)
        if (sites_seen[i] == s) return 1;
    return 0;
}

static void site_add(uint64_t s)
{
    if (sites_n == sites_cap) {
        sites_cap = sites_cap ? sites_cap * 2 : 64;
        sites_seen = realloc(sites_seen, sites_cap * sizeof *sites_seen);
        if (!sites_seen) abort();
    }
    sites_seen[sites_n++] = s;
}

static uint32_t mark_no;
static int hello_seen;

/* Drains the ring into the socket, then reads and checks everything against the model. */
static void drain_and_check(void)
{
    msc_sender_flush(0);
    char mark[64];
    snprintf(mark, sizeof mark, "{\"type\":\"fuzz-mark\",\"n\":%u}", ++mark_no);
    msc_sender_queue_text(mark);
    msc_sender_flush(0);
    if (msc_ring_head() != msc_ring_tail()) FAIL("the sender left %llu records in the ring",
                                                 (unsigned long long)(msc_ring_head() - msc_ring_tail()));

    size_t off = 0, got = 0;
    int found = 0;
    pthread_mutex_lock(&rx_mu);
    while (!found) {
        /* Parse complete client frames: FIN, opcode, masked with a key, 7/16/64-bit lengths. */
        while (!found && rx_len - off >= 2) {
            const uint8_t *f = rx + off;
            if (!(f[0] & 0x80)) FAIL("a fragmented frame");
            int op = f[0] & 15;
            if (!(f[1] & 0x80)) FAIL("an unmasked client frame");
            uint64_t len = f[1] & 127;
            size_t h = 2;
            if (len == 126) {
                if (rx_len - off < 4) break;
                len = (uint64_t)f[2] << 8 | f[3];
                h = 4;
                if (len < 126) FAIL("a 16-bit length for %llu bytes", (unsigned long long)len);
            } else if (len == 127) {
                if (rx_len - off < 10) break;
                len = 0;
                for (int i = 0; i < 8; i++) len = len << 8 | f[2 + i];
                h = 10;
                if (len < 65536) FAIL("a 64-bit length for %llu bytes", (unsigned long long)len);
            }
            h += 4;
            if (rx_len - off < h + len) break;
            uint8_t key[4];
            memcpy(key, f + h - 4, 4);
            uint8_t *pl = (uint8_t *)f + h;
            for (uint64_t i = 0; i < len; i++) pl[i] ^= key[i & 3];
            off += h + (size_t)len;
            if (op == 1) {
                if (!hello_seen) {
                    if (len < 16 || memcmp(pl, "{\"type\":\"hello\"", 15) != 0) FAIL("the first frame is no hello");
                    hello_seen = 1;
                } else if (len == strlen(mark) && memcmp(pl, mark, len) == 0) {
                    found = 1;
                }
                continue;
            }
            if (op != 2) FAIL("opcode %d from the sender", op);
            if (!hello_seen) FAIL("records before the hello");
            if (len == 0 || len % 64) FAIL("a binary frame of %llu bytes", (unsigned long long)len);
            /* Frames follow headers of 6 to 14 bytes: records are copied out to be read aligned. */
            size_t nrec = (size_t)len / 64;
            /* A call larger than a frame straddles two (the decoder keeps its unfinished call): allowed, but
             * nothing may come between its records (checked below against the model). */
            for (size_t i = 0; i < nrec; i++) {
                msc_record copy;
                memcpy(&copy, pl + i * 64, 64);
                const msc_record *g = &copy;
                int kind = g->head.kind;
                if (kind == MSC_KIND_LOST) FAIL("LOST: the ring dropped records");
                if (kind != MSC_KIND_EXT && got < want_n && want[got].head.kind == MSC_KIND_EXT)
                    FAIL("a record of kind %d inside a call (record %zu)", kind, got);
                if (kind == MSC_KIND_SITE) {
                    if (site_known((uint64_t)g->head.w[0])) FAIL("a second SITE for one site");
                    if ((uint64_t)g->head.w[0] != g->head.site) FAIL("a SITE naming another site");
                    site_add((uint64_t)g->head.w[0]);
                    while (i + 1 < nrec && pl[(i + 1) * 64] == MSC_KIND_EXT) i++;
                    continue;
                }
                if (got >= want_n) FAIL("record %zu was never made (kind %d)", got, kind);
                const msc_record *w = &want[got];
                if ((kind == MSC_KIND_ENTER || kind == MSC_KIND_FINDING) && g->head.site && !site_known(g->head.site))
                    FAIL("no SITE before the first record of site %#llx", (unsigned long long)g->head.site);
                /* Everything but the stamp, which the sender converts to nanoseconds. */
                int ext = kind == MSC_KIND_EXT;
                if (memcmp(g->bytes, w->bytes, 8) != 0 || (!ext && memcmp(g->bytes + 16, w->bytes + 16, 48) != 0) ||
                    (ext && memcmp(g->bytes + 8, w->bytes + 8, 56) != 0)) {
                    fprintf(stderr, "record %zu: kind %d/%d func %d/%d seq %u/%u\n", got, kind, w->head.kind,
                            g->head.func, w->head.func, g->head.seq, w->head.seq);
                    for (int k = 0; k < 8; k++)
                        fprintf(stderr, "  word %d: %llx / %llx\n", k, (unsigned long long)((uint64_t *)g->bytes)[k],
                                (unsigned long long)((uint64_t *)w->bytes)[k]);
                    FAIL("record %zu differs from the one made", got);
                }
                got++;
            }
        }
        if (!found) pthread_cond_wait(&rx_cv, &rx_mu);
    }
    if (got != want_n) FAIL("%zu records made, %zu arrived", want_n, got);
    memmove(rx, rx + off, rx_len - off);
    rx_len -= off;
    pthread_mutex_unlock(&rx_mu);
    want_n = 0;
}

static void setup(void)
{
    static int done;
    if (done) return;
    done = 1;
    setenv("MPISCOPE_CLOCK", "monotonic", 1);
    int sv[2];
    if (!msc_ring_init(RING_RECORDS) || socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
        FAIL("setup: %s", strerror(errno));
    msc_clock_init();
    peer = sv[1];
    if (!msc_sender_attach_fd(sv[0], 0, 1)) FAIL("setup: out of memory");
    pthread_t t;
    if (pthread_create(&t, NULL, reader, NULL) != 0) FAIL("setup: no reader thread");
}

/* A call site: none, one of a few real code addresses (shared objects, the executable), or any value. */
static uint64_t pick_site(input *in)
{
    static const void *real[] = { (const void *)&malloc, (const void *)&pthread_create, (const void *)&setup,
                                  (const void *)&fprintf };
    uint8_t how = (uint8_t)take(in, 1);
    if (how < 64) return 0;
    if (how < 192) return (uint64_t)(uintptr_t)real[how & 3] + (how >> 2 & 15);
    return take(in, 8);
}

static const int KINDS[] = { MSC_KIND_ENTER, MSC_KIND_EXIT,  MSC_KIND_COMPLETE, MSC_KIND_COMM,  MSC_KIND_DTYPE,
                             MSC_KIND_FINDING, MSC_KIND_OP, MSC_KIND_CLOCK,    MSC_KIND_BSEND };

/* Arrays and their elements; ints, int64s and handles, at most BIG elements. Built with a sender batch of 64
 * records (a frame of at most 1,280), so calls larger than a frame are common here. */
#define BIG 4096
static union {
    int i[MSC_MAX_ARRAYS][BIG];
    int64_t l[MSC_MAX_ARRAYS][BIG];
    MPI_Request q[MSC_MAX_ARRAYS][BIG];
    MPI_Datatype t[MSC_MAX_ARRAYS][BIG];
} arrays;

static int read_arrays(input *in, msc_arr *arr, int max, int allow_raw)
{
    int narr = (int)(take(in, 1) % (unsigned)(max + 1));
    /* A call the ring cannot hold whole is dropped by design (and counted): keep every call within it. */
    int budget = (RING_RECORDS - 16) * MSC_EXT_WORDS;
    for (int j = 0; j < narr; j++) {
        uint8_t k = (uint8_t)take(in, 1);
        int kind = k & 3;
        if (allow_raw && (k & 4)) kind |= MSC_ARR_RAW;
        uint16_t n16 = (uint16_t)take(in, 2);
        /* Mostly short, sometimes long: hundreds of EXT records, more than a frame holds. */
        int n = (n16 & 0x8000) ? (n16 & (BIG - 1)) : (n16 & 31);
        if (n > budget) n = budget;
        budget -= n + 1;
        arr[j].kind = kind;
        arr[j].n = n;
        for (int i = 0; i < n; i++) {
            switch (kind & 3) {
            case MSC_ARR_I64: arrays.l[j][i] = (int64_t)take(in, 8); break;
            case MSC_ARR_REQUEST: arrays.q[j][i] = (MPI_Request)(uintptr_t)take(in, 8); break;
            case MSC_ARR_DATATYPE: arrays.t[j][i] = (MPI_Datatype)(uintptr_t)take(in, 8); break;
            default: arrays.i[j][i] = (int)take(in, 4);
            }
        }
        arr[j].ptr = &arrays.l[j][0];
    }
    return narr;
}

/* Records that n words take: a head and EXT records. */
static size_t records_of(size_t n) { return 1 + (n > MSC_HEAD_WORDS ? (n - MSC_HEAD_WORDS + MSC_EXT_WORDS - 1) / MSC_EXT_WORDS : 0); }

/* Room in the ring for a call's records, before it is written and before the model expects it: drained first
 * when short (a full ring would wait for the sender this harness runs itself). */
static void make_room(size_t nrec)
{
    if (msc_ring_head() - msc_ring_tail() + nrec > RING_RECORDS) drain_and_check();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    setup();
    input in = { data, size };
    int ops = 0;
    while (in.n && ops++ < 64) {
        uint8_t op = (uint8_t)take(&in, 1);
        uint16_t func = (uint16_t)take(&in, 2);
        uint32_t seq = (uint32_t)take(&in, 4);
        uint64_t site = pick_site(&in);
        switch (op % 5) {
        case 0: { /* msc_emit: any kind of record with words and arrays */
            int kind = KINDS[take(&in, 1) % (sizeof KINDS / sizeof KINDS[0])];
            int flags = (int)take(&in, 1);
            int64_t w[MSC_MAX_WORDS];
            int nw = (int)(take(&in, 1) % (MSC_MAX_WORDS + 1));
            for (int i = 0; i < nw; i++) w[i] = (int64_t)take(&in, 8);
            msc_arr arr[MSC_MAX_ARRAYS];
            int narr = read_arrays(&in, arr, MSC_MAX_ARRAYS, 1);
            size_t n = flatten(w, nw, arr, narr);
            make_room(records_of(n));
            want_call(kind, flags, func, seq, site, flat, n);
            msc_emit(kind, flags, func, seq, msc_stamp(), site, w, nw, arr, narr);
            break;
        }
        case 1:
        case 2: { /* msc_emit_pair: a held call's ENTER, the COMPLETE of a request handed out done, its EXIT */
            msc_call c;
            memset(&c, 0, sizeof c);
            c.func = func;
            c.seq = seq;
            c.site = site;
            c.time = c.xtime = msc_stamp();
            c.xflags = (uint8_t)take(&in, 1);
            int enter_flags = (int)take(&in, 1);
            c.eflags = op & 0x20 ? MSC_ENTER_PACKED : 0;
            c.nw = (int)(take(&in, 1) % (MSC_MAX_WORDS + 1));
            for (int i = 0; i < c.nw; i++) c.w[i] = (int64_t)take(&in, 8);
            c.nx = (int)(take(&in, 1) % 9);
            for (int i = 0; i < c.nx; i++) c.x[i] = (int64_t)take(&in, 8);
            c.narr = op % 5 == 2 ? read_arrays(&in, c.arr, MSC_MAX_ARRAYS, 0) : 0;
            static int xarr[4096];
            if (op & 0x40) {
                c.xarr_n = (int)(take(&in, 2) % 4096);
                for (int i = 0; i < c.xarr_n; i++) xarr[i] = (int)take(&in, 4);
                c.xarr = xarr;
            }
            if (op & 0x80) c.done_id = (int64_t)take(&in, 8) | 1;
            msc_arr xa = { MSC_ARR_INT | MSC_ARR_RAW, c.xarr, c.xarr_n };
            size_t n = flatten(c.x, c.nx, &xa, c.xarr ? 1 : 0);
            size_t nexit = records_of(n);
            n = flatten(c.w, c.nw, c.arr, c.narr);
            make_room(records_of(n) + (c.done_id ? 1 : 0) + nexit);
            want_call(MSC_KIND_ENTER, enter_flags | c.eflags, func, seq, site, flat, n);
            /* The done request's COMPLETE and an EXIT of at most two words, no indices and only flags bit0 are one
             * COMPLETE_EXIT record (records.json), as a blocking call's last COMPLETE and EXIT are. */
            if (c.done_id && c.nx <= 2 && c.xarr_n == 0 && !(c.xflags & ~1)) {
                int64_t m[5] = { c.done_id, halves(-1, -1), 0, halves(MPI_SUCCESS, c.nx ? c.x[0] : 0),
                                 c.nx > 1 ? c.x[1] : 0 };
                want_call(MSC_KIND_COMPLETE_EXIT, c.xflags, func, seq, site, m, 5);
                msc_emit_pair(&c, enter_flags);
                break;
            }
            if (c.done_id) {
                int64_t cw[6] = { c.done_id, -1, -1, 0, MPI_SUCCESS, 0 };
                want_complete(0, func, seq, site, cw);
            }
            n = flatten(c.x, c.nx, &xa, c.xarr ? 1 : 0);
            /* A one-record EXIT is its five words whole (an msc_call's unused words are zero). */
            want_call(MSC_KIND_EXIT, c.xflags, func, seq, site, flat, n);
            msc_emit_pair(&c, enter_flags);
            break;
        }
        case 3: { /* msc_emit_completes: COMPLETE records kept back, then the EXIT, the last two merged when they fit */
            msc_call c;
            memset(&c, 0, sizeof c);
            c.func = func;
            c.seq = seq;
            c.site = site;
            c.xtime = msc_stamp();
            c.xflags = (uint8_t)take(&in, 1);
            c.ncomp = (int)(take(&in, 1) % (MSC_MAX_COMPLETES + 1));
            int with_exit = op & 0x80 ? 1 : 0;
            /* Mostly what a wrapper has (flags a COMPLETE_EXIT has bits for, EXITs of one or two words, a return
             * code and source, tag and error that are C ints, cancelled 0 or 1), sometimes anything. */
            int wild = op & 0x40;
            if (!wild) c.xflags &= 1;
            c.nx = (int)(take(&in, 1) % (MSC_HEAD_WORDS + 1));
            for (int i = 0; i < c.nx; i++) c.x[i] = (int64_t)take(&in, 8);
            if (c.nx) c.x[0] = (int32_t)c.x[0];
            make_room((size_t)c.ncomp + (size_t)with_exit);
            for (int i = 0; i < c.ncomp; i++) {
                c.comp_flags[i] = (uint8_t)take(&in, 1);
                if (!wild) c.comp_flags[i] &= 6;
                for (int k = 0; k < 6; k++) c.comp[i][k] = (int64_t)take(&in, 8);
                for (int k = 1; k < 6; k++)
                    if (k != 3) c.comp[i][k] = (int32_t)c.comp[i][k];
                if (!wild) c.comp[i][5] &= 1;
            }
            int64_t *last = c.ncomp ? c.comp[c.ncomp - 1] : NULL;
            int merge = with_exit && last && c.nx <= 2 && !(c.xflags & ~1) && !(c.comp_flags[c.ncomp - 1] & ~6) &&
                        (last[5] == 0 || last[5] == 1);
            for (int i = 0; i < c.ncomp - merge; i++) want_complete(c.comp_flags[i], func, seq, site, c.comp[i]);
            if (merge) {
                /* records.json COMPLETE_EXIT: flags bit0 the EXIT's, bit1-2 the COMPLETE's, bit3 cancelled. */
                int64_t m[5] = { last[0], halves(last[1], last[2]), last[3], halves(last[4], c.nx ? c.x[0] : 0),
                                 c.nx > 1 ? c.x[1] : 0 };
                want_call(MSC_KIND_COMPLETE_EXIT, c.comp_flags[c.ncomp - 1] | c.xflags | (last[5] ? 8 : 0), func, seq,
                          site, m, 5);
            } else if (with_exit)
                want_call(MSC_KIND_EXIT, c.xflags, func, seq, site, c.x, (size_t)c.nx);
            msc_emit_completes(&c, with_exit);
            break;
        }
        default: /* a frame boundary here */
            drain_and_check();
        }
    }
    drain_and_check();
    return 0;
}
