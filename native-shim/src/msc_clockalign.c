/* Clock alignment: each rank's record clock against rank 0's, from ping-pongs at MPI_Init and at MPI_Finalize.
 *
 * Ranks on different hosts have unrelated monotonic clocks, and their CLOCK_REALTIME (which the first CLOCK
 * record pairs with the monotonic clock) is only as close as NTP keeps it: milliseconds off is enough for a
 * timeline to draw a message arriving before it was sent. Here rank 0 sends each other rank pings in turn; the rank answers each with its clock tr, read when the ping arrived. For the round trip [t0, t1] on rank
 * 0's clock, the rank's offset o = (its clock) - (rank 0's clock) lies in [tr - t1, tr - t0]: the round trip
 * with the smallest duration gives the narrowest interval (the classic Cristian/NTP estimate). Rank 0 sends each
 * rank its interval, and the rank writes it into the stream as a second CLOCK record (words: realtime, lo, hi,
 * phase; records.json). The analyzer keeps its realtime alignment when it falls inside the interval (one host:
 * exact) and clamps it into the interval otherwise; the two phases give the drift between them
 * (server/src/timeline/clock-align.ts).
 *
 * Why it is safe to communicate here: MPI_Init and MPI_Finalize are called by every rank of MPI_COMM_WORLD, and
 * the exchange runs on a duplicate of it made inside MPI_Init (PMPI_Comm_dup, collective over ranks that are all
 * in MPI_Init), so no message of the program can match ours. Nothing waits without a deadline: every
 * operation is a nonblocking one polled until MPISCOPE_CLOCK_ALIGN_MS (default 2000) after the phase began; a
 * rank that does not answer in time (it died, or it never calls MPI_Finalize) is left out, the pending
 * operations are cancelled, and the program goes on. It runs only with MPISCOPE_CLOCK_ALIGN=1, which the session
 * sets for a job across hosts (on one host the ranks share the clock and the realtime alignment is exact). */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "msc_shim.h"

/* At least MIN_PINGS round trips per rank, more (up to MAX_PINGS) while the fastest is slower than GOOD_RTT_NS: a
 * loaded machine delays most round trips by whole scheduler slices, and the interval is only as narrow as the
 * fastest one. The rank learns how many from the first word of each ping (0: the last). */
#define MIN_PINGS 8
#define MAX_PINGS 64
#define GOOD_RTT_NS 50000u
#define TAG_PING 1
#define TAG_PONG 2
#define TAG_RESULT 3

static MPI_Comm align_comm = MPI_COMM_NULL;
static int align_off;
static uint64_t deadline_ns;

static uint64_t now_ns(void) { return msc_clock_peek_ns(msc_stamp()); }

static uint64_t wall_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Polls a request until it completes or the phase's deadline passes; on the deadline it is cancelled. */
static int finish(MPI_Request *r)
{
    int done = 0;
    while (!done) {
        if (PMPI_Test(r, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS) return 0;
        if (!done && wall_ns() > deadline_ns) {
            PMPI_Cancel(r);
            PMPI_Request_free(r);
            return 0;
        }
    }
    return 1;
}

static int send_words(const int64_t *w, int n, int to, int tag)
{
    MPI_Request r;
    if (PMPI_Isend((void *)w, n, MPI_INT64_T, to, tag, align_comm, &r) != MPI_SUCCESS) return 0;
    return finish(&r);
}

static int recv_words(int64_t *w, int n, int from, int tag)
{
    MPI_Request r;
    if (PMPI_Irecv(w, n, MPI_INT64_T, from, tag, align_comm, &r) != MPI_SUCCESS) return 0;
    return finish(&r);
}

static void emit_clock(int64_t lo, int64_t hi, int phase)
{
    uint64_t stamp = msc_stamp();
    int64_t w[4] = { msc_clock_realtime(), lo, hi, phase };
    msc_emit(MSC_KIND_CLOCK, 0, 0, 0, stamp, 0, w, 4, NULL, 0);
}

/* Rank 0: the narrowest interval of each other rank in turn. */
static void serve(int size, int phase)
{
    emit_clock(0, 0, phase);
    for (int r = 1; r < size; r++) {
        int64_t best_lo = 0, best_hi = 0;
        uint64_t best = UINT64_MAX;
        int ok = 1;
        for (int k = 0; k < MAX_PINGS && ok; k++) {
            int last = k == MAX_PINGS - 1 || (k >= MIN_PINGS - 1 && best < GOOD_RTT_NS);
            int64_t ping = last ? 0 : 1, pong = 0;
            uint64_t t0 = now_ns();
            ok = send_words(&ping, 1, r, TAG_PING) && recv_words(&pong, 1, r, TAG_PONG);
            uint64_t t1 = now_ns();
            if (ok && t1 - t0 < best) {
                best = t1 - t0;
                best_lo = pong - (int64_t)t1;
                best_hi = pong - (int64_t)t0;
            }
            if (last) break;
        }
        int64_t result[3] = { best_lo, best_hi, ok };
        /* A rank that did not answer gets nothing: it has timed out too, or is gone. */
        if (ok) send_words(result, 3, r, TAG_RESULT);
    }
}

static void answer(int phase)
{
    for (int k = 0; k < MAX_PINGS; k++) {
        int64_t ping;
        if (!recv_words(&ping, 1, 0, TAG_PING)) return;
        int64_t pong = (int64_t)now_ns();
        if (!send_words(&pong, 1, 0, TAG_PONG)) return;
        if (ping == 0) break;
    }
    int64_t result[3];
    if (recv_words(result, 3, 0, TAG_RESULT) && result[2]) emit_clock(result[0], result[1], phase);
}

void msc_clock_align(int phase)
{
    const char *ms = getenv("MPISCOPE_CLOCK_ALIGN_MS");
    uint64_t budget = (ms && atoi(ms) > 0 ? (uint64_t)atoi(ms) : 2000u) * 1000000u;
    deadline_ns = wall_ns() + budget;
    if (phase == 1) {
        /* Only when asked (the session asks for jobs across hosts): a rank whose shim could not reach the
         * analyzer runs unrecorded and takes no part, and the others would wait for it (bounded, below). */
        const char *on = getenv("MPISCOPE_CLOCK_ALIGN");
        align_off = !(on && strcmp(on, "1") == 0);
        if (align_off || msc_world_size < 2) return;
        /* Collective over MPI_COMM_WORLD, whose every rank is in MPI_Init now (see the top of this file), but
         * nonblocking and polled against the deadline: a rank that runs unrecorded never joins it. Such a
         * request cannot be cancelled; it is left pending, and nothing else of ours runs. */
        MPI_Request r;
        MPI_Comm dup = MPI_COMM_NULL;
        if (PMPI_Comm_idup(MPI_COMM_WORLD, &dup, &r) != MPI_SUCCESS) return;
        int done = 0;
        while (!done && wall_ns() <= deadline_ns)
            if (PMPI_Test(&r, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS) return;
        if (!done) return;
        align_comm = dup;
    }
    if (align_comm == MPI_COMM_NULL) return;
    int rank = 0;
    PMPI_Comm_rank(align_comm, &rank);
    if (rank == 0)
        serve(msc_world_size, phase);
    else
        answer(phase);
    if (phase == 2) {
        /* Freed without a collective: MPI_Comm_free is local in effect, and MPI_Finalize follows. */
        PMPI_Comm_free(&align_comm);
        align_comm = MPI_COMM_NULL;
    }
}
