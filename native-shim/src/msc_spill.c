/* The spill: when the analyzer dies mid-run (its connection breaks without a close frame), the sender goes on
 * draining the ring into a per-rank file instead of the socket, so that `mpiscope report TRACE` can merge
 * what the analyzer never saw (server/src/session/spill.ts). Only when the session asked for it
 * (MPISCOPE_SPILL, the trace's path: mpiscope run --trace) and up to a bound (MPISCOPE_SPILL_MAX_MB).
 *
 * Frames the socket accepted may still be lost: they sat in the kernel's buffers or in the analyzer's reader
 * when it died. So the sender keeps a copy of its last frames (a byte ring, MPISCOPE_SPILL_HISTORY_KB) and
 * numbers every frame it sends (the hello is frame 0); the spill starts with that history and says the number
 * of its first frame. The merger counts the rank's frames in the trace and takes the spill's frames from there
 * on: nothing twice, and a gap (history smaller than what was in flight) is counted, not guessed.
 *
 * Everything here runs under the sender's send_mu (msc_sender.c); none of it is on the application's path.
 * The file uses the trace format (trace-file.ts): 16-byte header, then frames of u32 rank, u32 kind, u32
 * length, payload; kind 0 binary, 1 text, 2 a session record. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "msc_shim.h"

#define HIST_FRAMES 4096

static int configured = -1; /* -1 not read yet, 0 off, 1 on */
static char prefix[3072];
static uint64_t max_bytes;

static unsigned char *hist;
static size_t hist_cap;
static uint64_t hist_w; /* bytes ever written into hist */
static struct {
    uint64_t at;
    uint32_t len;
    uint8_t text;
} ents[HIST_FRAMES];
static uint64_t first_kept, next_frame; /* frame numbers: kept history [first_kept, next_frame) */

static int fd = -1;
static uint64_t written;
static char path[3200];

static void configure(void)
{
    if (configured >= 0) return;
    configured = 0;
    const char *p = getenv("MPISCOPE_SPILL");
    if (!p || !*p || strlen(p) >= sizeof prefix) return;
    strcpy(prefix, p);
    const char *m = getenv("MPISCOPE_SPILL_MAX_MB");
    long mb = m ? atol(m) : 0;
    max_bytes = (uint64_t)(mb > 0 ? mb : 64) << 20;
    const char *h = getenv("MPISCOPE_SPILL_HISTORY_KB");
    long kb = h ? atol(h) : 0;
    hist_cap = (size_t)(kb > 0 ? kb : 4096) << 10;
    /* Not touched until frames are copied in: the pages cost only what the history holds. */
    hist = malloc(hist_cap);
    if (hist) configured = 1;
}

int msc_spill_enabled(void)
{
    configure();
    return configured == 1;
}

/* Drops from the history the frames the bytes up to hist_w have overwritten: a frame is intact while its start
 * is at most hist_cap behind hist_w. */
static void evict(void)
{
    while (first_kept < next_frame &&
           (next_frame - first_kept > HIST_FRAMES || hist_w - ents[first_kept % HIST_FRAMES].at > hist_cap))
        first_kept++;
}

void *msc_spill_area(size_t need)
{
    /* At most half the history, so that a frame built here leaves room for the ones before it. */
    if (!msc_spill_enabled() || fd >= 0 || need > hist_cap / 2) return NULL;
    size_t at = (size_t)(hist_w % hist_cap);
    if (hist_cap - at < need) {
        /* Not enough room before the end: the frame starts at the beginning, and the bytes skipped count as
         * written, so that the frames the new one will overwrite are dropped by the same rule as always. */
        hist_w += hist_cap - at;
        evict();
        at = 0;
    }
    return hist + at;
}

void msc_spill_keep(int opcode, const void *p, size_t n)
{
    uint64_t k = next_frame++;
    if (!msc_spill_enabled()) return;
    if (n > hist_cap) {
        /* Larger than the whole history: nothing before it can be kept either. */
        first_kept = next_frame;
        return;
    }
    size_t at = (size_t)(hist_w % hist_cap), first = n < hist_cap - at ? n : hist_cap - at;
    /* A frame built in place (msc_spill_area) is already where the copy would go: keeping it is bookkeeping. */
    if (p != hist + at) {
        memcpy(hist + at, p, first);
        memcpy(hist, (const unsigned char *)p + first, n - first);
    }
    ents[k % HIST_FRAMES].at = hist_w;
    ents[k % HIST_FRAMES].len = (uint32_t)n;
    ents[k % HIST_FRAMES].text = opcode == 1;
    hist_w += n;
    evict();
}

static int put(uint32_t rank, uint32_t kind, const void *a, size_t alen, const void *b, size_t blen)
{
    uint32_t head[3] = { rank, kind, (uint32_t)(alen + blen) };
    struct iovec iov[3] = { { head, sizeof head }, { (void *)a, alen }, { (void *)b, blen } };
    size_t left = sizeof head + alen + blen;
    int cnt = 3;
    struct iovec *v = iov;
    while (left) {
        ssize_t k = writev(fd, v, cnt);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) return 0;
        left -= (size_t)k;
        written += (size_t)k;
        while (k > 0 && cnt) {
            if ((size_t)k >= v->iov_len) {
                k -= (ssize_t)v->iov_len;
                v++;
                cnt--;
            } else {
                v->iov_base = (char *)v->iov_base + k;
                v->iov_len -= (size_t)k;
                k = 0;
            }
        }
    }
    return 1;
}

static int put_session(const char *json) { return put(0xffffffffu, 2, json, strlen(json), NULL, 0); }

int msc_spill_begin(int rank, const char *why)
{
    if (!msc_spill_enabled() || fd >= 0) return fd >= 0;
    snprintf(path, sizeof path, "%s.rank%d.spill", prefix, rank);
    fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    char host[256] = "?";
    gethostname(host, sizeof host - 1);
    if (fd < 0) {
        fprintf(stderr,
                "mpiscope: rank %d on host %s lost the analyzer (%s) and cannot write its spill file %s: %s; it "
                "runs on without recording\n",
                rank, host, why, path, strerror(errno));
        return 0;
    }
    static const unsigned char header[16] = { 'M', 'S', 'C', 'T', 'R', 'A', 'C', 'E', 1, 0, 0, 0, 0, 0, 0, 0 };
    ssize_t k = write(fd, header, sizeof header);
    char json[512];
    snprintf(json, sizeof json,
             "{\"type\":\"spill\",\"version\":1,\"rank\":%d,\"pid\":%d,\"firstFrame\":%llu,\"why\":\"%s\","
             "\"limitBytes\":%llu}",
             rank, (int)getpid(), (unsigned long long)first_kept, why, (unsigned long long)max_bytes);
    int ok = k == (ssize_t)sizeof header && put_session(json);
    for (uint64_t f = first_kept; ok && f < next_frame; f++) {
        size_t at = (size_t)(ents[f % HIST_FRAMES].at % hist_cap), n = ents[f % HIST_FRAMES].len;
        size_t first = n < hist_cap - at ? n : hist_cap - at;
        ok = put((uint32_t)rank, ents[f % HIST_FRAMES].text, hist + at, first, hist, n - first);
    }
    if (!ok) {
        close(fd);
        fd = -1;
        return 0;
    }
    fprintf(stderr,
            "mpiscope: rank %d on host %s lost the analyzer (%s); it records on into %s (at most %llu MiB) for "
            "mpiscope report to merge\n",
            rank, host, why, path, (unsigned long long)(max_bytes >> 20));
    return 1;
}

int msc_spill_write(int opcode, const void *p, size_t n)
{
    if (fd < 0) return 0;
    if (written + n + 12 > max_bytes) {
        char json[160];
        snprintf(json, sizeof json, "{\"type\":\"spill-full\",\"limitBytes\":%llu}", (unsigned long long)max_bytes);
        put_session(json);
        msc_spill_close();
        return 0;
    }
    if (put((uint32_t)msc_world_rank, opcode == 1 ? 1 : 0, p, n, NULL, 0)) return 1;
    msc_spill_close();
    return 0;
}

int msc_spill_active(void) { return fd >= 0; }

void msc_spill_close(void)
{
    if (fd >= 0) close(fd);
    fd = -1;
}

/* A forked child must not write into its parent's spill. */
void msc_spill_forget(void)
{
    msc_spill_close();
    configured = 0;
}
