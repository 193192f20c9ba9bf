/* The records' clock: the hot path stamps raw ticks, the sender turns them into CLOCK_MONOTONIC nanoseconds.
 *
 * Measured on these machines: clock_gettime (vDSO) costs ~28 ns, rdtsc ~11 ns, and a call reads the clock
 * twice (ENTER and EXIT). So where the TSC is trustworthy the hot path stores the TSC as it is, and the one
 * consumer converts it while it copies records out of the ring (msc_ring_take), off the application's thread:
 *   ns = mono0 + (tsc - tsc0) * rate
 * with (tsc0, mono0) read together at start and rate refined on every conversion from the whole elapsed
 * interval, so that its error shrinks as the run goes on. The decoder still sees nanoseconds.
 *
 * The TSC is used only when the kernel itself keeps CLOCK_MONOTONIC on it (current clocksource "tsc": the
 * kernel found it synchronised across CPUs and stable) and the CPU says constant_tsc and nonstop_tsc.
 * Otherwise, or with MPISCOPE_CLOCK=monotonic, the stamp is clock_gettime and the conversion is the identity.
 * MPISCOPE_CLOCK=tsc forces the TSC (for instruction counts under valgrind, which slows the calibration). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "msc_shim.h"

int msc_clock_tsc;

static uint64_t tsc0, mono0;
static double rate; /* ns per tick */
static uint64_t last_ns;
static uint64_t pair_window = 1000; /* ticks */

/* For tests only: MPISCOPE_TEST_CLOCK_SKEW=RANK:OFFSET_NS:DRIFT_PPM shifts this rank's record clock by OFFSET_NS
 * plus DRIFT_PPM millionths of the time since start, as a host whose clock is off and runs fast or slow would;
 * the realtime of its CLOCK records is shifted the same way (msc_clock_realtime), so the analyzer's realtime
 * alignment is off by the skew, as across hosts whose NTP is off. The clock alignment at MPI_Init and
 * MPI_Finalize (msc_clockalign.c) must undo it. */
static int skew_on;
static int64_t skew_offset;
static double skew_rate;

static void skew_setup(void)
{
    const char *v = getenv("MPISCOPE_TEST_CLOCK_SKEW");
    int rank;
    long long off;
    double ppm;
    if (!v || sscanf(v, "%d:%lld:%lf", &rank, &off, &ppm) != 3 || rank != msc_launcher_rank()) return;
    skew_offset = off;
    skew_rate = ppm * 1e-6;
    skew_on = 1;
}

static uint64_t skewed(uint64_t ns)
{
    if (!skew_on) return ns;
    return (uint64_t)((int64_t)ns + skew_offset + (int64_t)((double)(int64_t)(ns - mono0) * skew_rate));
}

int64_t msc_clock_realtime(void)
{
    struct timespec rt, mono;
    clock_gettime(CLOCK_REALTIME, &rt);
    clock_gettime(CLOCK_MONOTONIC, &mono);
    int64_t ns = (int64_t)rt.tv_sec * 1000000000 + rt.tv_nsec;
    if (!skew_on) return ns;
    uint64_t m = (uint64_t)mono.tv_sec * 1000000000u + (uint64_t)mono.tv_nsec;
    return ns + (int64_t)(skewed(m) - m);
}

static int file_has(const char *path, const char *word, size_t max)
{
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    char *buf = malloc(max + 1);
    size_t n = buf ? fread(buf, 1, max, f) : 0;
    fclose(f);
    if (!buf) return 0;
    buf[n] = 0;
    int found = strstr(buf, word) != NULL;
    free(buf);
    return found;
}

/* A (tsc, mono) pair read back to back; rejected when the thread was interrupted between the two reads. */
static int read_pair(uint64_t *tsc, uint64_t *mono)
{
    for (int tries = 0; tries < 8; tries++) {
        uint64_t a = msc_rdtsc();
        uint64_t m = msc_now();
        uint64_t b = msc_rdtsc();
        /* Both reads take ~40 ns together (~120 ticks); 1000 ticks means nothing came in between. */
        if (b - a < pair_window) {
            *tsc = a + (b - a) / 2;
            *mono = m;
            return 1;
        }
    }
    return 0;
}

static int tsc_usable(void)
{
    const char *env = getenv("MPISCOPE_CLOCK");
    if (env && strcmp(env, "monotonic") == 0) return 0;
    /* Forced (benchmarks under valgrind, where the pair check below is too slow to pass): trusted as is. */
    if (env && strcmp(env, "tsc") == 0) return pair_window = 1u << 30;
#if defined(__x86_64__) || defined(__i386__)
    if (!file_has("/sys/devices/system/clocksource/clocksource0/current_clocksource", "tsc", 64)) return 0;
    /* The flags line of the first CPU is enough: they are the same on every CPU of a machine. */
    return file_has("/proc/cpuinfo", " constant_tsc", 1 << 16) && file_has("/proc/cpuinfo", " nonstop_tsc", 1 << 16);
#else
    return 0;
#endif
}

int64_t msc_clock_init(void)
{
    struct timespec rt;
    skew_setup();
    if (!tsc_usable() || !read_pair(&tsc0, &mono0)) {
        msc_clock_tsc = 0;
        tsc0 = mono0 = msc_now();
        clock_gettime(CLOCK_REALTIME, &rt);
        return (int64_t)rt.tv_sec * 1000000000 + rt.tv_nsec + (skew_on ? skew_offset : 0);
    }
    clock_gettime(CLOCK_REALTIME, &rt);
    int64_t realtime = (int64_t)rt.tv_sec * 1000000000 + rt.tv_nsec + (skew_on ? skew_offset : 0);
    /* A first rate over one millisecond, so that the first records convert well; refined later. */
    uint64_t t1 = 0, m1 = 0;
    do {
        if (!read_pair(&t1, &m1)) return realtime;
    } while (m1 - mono0 < 1000000u);
    if (t1 <= tsc0) return realtime;
    rate = (double)(m1 - mono0) / (double)(t1 - tsc0);
    msc_clock_tsc = 1;
    return realtime;
}

uint64_t msc_clock_anchor(void) { return msc_clock_tsc ? tsc0 : mono0; }

/* Consumer side only (the holder of the sender's lock), before converting what it took. The rate is always
 * measured over the whole run so far, so a stamp converted now is off by at most one pair's reading error
 * (tens of ns) however long the run, and two rates in a row differ by no more than that either. */
void msc_clock_refine(void)
{
    if (!msc_clock_tsc) return;
    uint64_t t, m;
    if (read_pair(&t, &m) && m - mono0 > 1000000u && t > tsc0) rate = (double)(m - mono0) / (double)(t - tsc0);
}

/* A stamp in nanoseconds without the consumer's bookkeeping: for the application's thread (msc_clockalign.c). */
uint64_t msc_clock_peek_ns(uint64_t stamp)
{
    if (!msc_clock_tsc) return skewed(stamp);
    return skewed(mono0 + (uint64_t)(int64_t)((double)(int64_t)(stamp - tsc0) * rate));
}

static inline uint64_t clock_ns(uint64_t stamp)
{
    if (!msc_clock_tsc) return skewed(stamp);
    int64_t d = (int64_t)(stamp - tsc0);
    uint64_t ns = skewed(mono0 + (uint64_t)(int64_t)((double)d * rate));
    /* A refined rate may pull a conversion back by a few ns against an earlier one: time never goes back. */
    if (ns < last_ns) ns = last_ns;
    last_ns = ns;
    return ns;
}

uint64_t msc_clock_ns(uint64_t stamp) { return clock_ns(stamp); }

void msc_clock_convert(msc_record *r, int n)
{
    /* One call per batch rather than per record; EXT records carry words, not a stamp. */
    for (int i = 0; i < n; i++)
        if (r[i].head.kind != MSC_KIND_EXT) r[i].head.time = clock_ns(r[i].head.time);
}
