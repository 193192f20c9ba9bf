/* Invalid-argument checks made before a call reaches MPI, and send-buffer checksums.
 *
 * A failed check becomes a FINDING record that is flushed to the analyzer before PMPI is called, because
 * MPI's default error handler aborts the job on that very call. The checks only report: the call is always
 * forwarded unchanged, so the program behaves as it would without the shim.
 *
 * State about handles (datatypes created/committed/freed, communicators freed, checksums of pending sends)
 * lives in small lock-free tables with bounded probing: no lock, no allocation; a table that is full simply
 * stops tracking, which can only make a check silent, never wrong. */
#include <stdlib.h>
#include <string.h>

#include "msc_shim.h"

int msc_checks_on = 1;
int msc_tag_ub = 32767;
_Atomic int msc_checksums_pending;

/* ---- bounded-probe lock-free tables ---- */
#define TBL_BITS 12
#define TBL_SIZE (1u << TBL_BITS)
#define PROBE 16

typedef struct slot {
    _Atomic uint64_t key;
    _Atomic int64_t v[3];
} slot;

static slot dtypes[TBL_SIZE], comms[TBL_SIZE], sends[TBL_SIZE];
static _Atomic int n_dtypes, n_comms;
static _Atomic uint32_t comm_gen; /* bumped whenever a communicator is created or freed */

static unsigned tbl_hash(uint64_t k) { return (unsigned)((k * 0x9E3779B97F4A7C15ull) >> (64 - TBL_BITS)); }

static slot *tbl_find(slot *t, uint64_t key)
{
    unsigned h = tbl_hash(key);
    for (unsigned i = 0; i < PROBE; i++) {
        slot *s = &t[(h + i) & (TBL_SIZE - 1)];
        if (atomic_load_explicit(&s->key, memory_order_acquire) == key) return s;
    }
    return NULL;
}

static slot *tbl_put(slot *t, uint64_t key)
{
    slot *s = tbl_find(t, key);
    if (s) return s;
    unsigned h = tbl_hash(key);
    for (unsigned i = 0; i < PROBE; i++) {
        s = &t[(h + i) & (TBL_SIZE - 1)];
        uint64_t empty = 0;
        if (atomic_compare_exchange_strong(&s->key, &empty, key)) return s;
    }
    return NULL;
}

void msc_dtype_track(MPI_Datatype t, int state)
{
    uint64_t k = (uint64_t)msc_w_MPI_Datatype(t);
    if (!k) return;
    slot *s = tbl_put(dtypes, k);
    if (!s) return;
    atomic_store(&s->v[0], state);
    atomic_store(&n_dtypes, 1);
}

void msc_comm_track(MPI_Comm comm, int freed)
{
    uint64_t k = (uint64_t)msc_w_MPI_Comm(comm);
    if (!k) return;
    atomic_fetch_add_explicit(&comm_gen, 1, memory_order_release);
    if (freed) {
        slot *s = tbl_put(comms, k);
        if (s) atomic_store(&s->v[0], 1);
        atomic_store(&n_comms, 1);
    } else {
        /* A new communicator may reuse a freed one's handle. */
        slot *s = atomic_load(&n_comms) ? tbl_find(comms, k) : NULL;
        if (s) atomic_store(&s->v[0], 0);
    }
}

/* ---- findings ---- */
static __thread int found;

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

/* Sends the findings of this call before MPI gets the chance to abort on it. */
static void flush_findings(void)
{
    if (!found) return;
    found = 0;
    msc_sender_flush(2000);
}

/* ---- individual checks ---- */
static int comm_ok(msc_call *c, MPI_Comm comm)
{
    if (comm == MPI_COMM_NULL) {
        finding_role(c, MSC_CHECK_NULL_COMM, MSC_ROLE_COMM, 0, 0);
        return 0;
    }
    if (atomic_load_explicit(&n_comms, memory_order_relaxed)) {
        slot *s = tbl_find(comms, (uint64_t)msc_w_MPI_Comm(comm));
        if (s && atomic_load(&s->v[0]) == 1) {
            finding_role(c, MSC_CHECK_FREED_COMM, MSC_ROLE_COMM, msc_w_MPI_Comm(comm), 0);
            return 0;
        }
    }
    return msc_mpi_ready;
}

static int dtype_ok(msc_call *c, MPI_Datatype t, uint64_t role)
{
    if (t == MPI_DATATYPE_NULL) {
        finding_role(c, MSC_CHECK_NULL_DATATYPE, role, 0, 0);
        return 0;
    }
    if (atomic_load_explicit(&n_dtypes, memory_order_relaxed)) {
        slot *s = tbl_find(dtypes, (uint64_t)msc_w_MPI_Datatype(t));
        int64_t st = s ? atomic_load(&s->v[0]) : 0;
        if (st == MSC_DT_FREED) {
            finding_role(c, MSC_CHECK_FREED_DATATYPE, role, msc_w_MPI_Datatype(t), 0);
            return 0;
        }
        if (st == MSC_DT_CREATED) {
            finding_role(c, MSC_CHECK_UNCOMMITTED_DATATYPE, role, msc_w_MPI_Datatype(t), 0);
            return 0;
        }
    }
    return 1;
}

static void count_ok(msc_call *c, int count, uint64_t role)
{
    if (count < 0) finding_role(c, MSC_CHECK_NEGATIVE_COUNT, role, count, 0);
}

/* A buffer may be NULL only when nothing is read or written; with a derived type NULL is MPI_BOTTOM and
 * the addresses are absolute, so only predefined types are judged. */
static void buf_ok(msc_call *c, const void *buf, int count, MPI_Datatype t, int dtype_valid, uint64_t role)
{
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

/* The number of possible peers of a communicator, asked of MPI once per communicator and thread: two PMPI
 * queries cost more than the rest of a send's checks. A handle may be reused after MPI_Comm_free, so every
 * free or creation bumps a generation that empties the per-thread caches. */
#define PEER_CACHE 8
static __thread struct {
    uint32_t gen;
    int next;
    MPI_Comm comm[PEER_CACHE];
    int n[PEER_CACHE];
} peers;

static int peer_limit(MPI_Comm comm)
{
    uint32_t gen = atomic_load_explicit(&comm_gen, memory_order_acquire) + 1; /* 0: the cache is empty */
    if (peers.gen != gen) {
        for (int i = 0; i < PEER_CACHE; i++) peers.comm[i] = MPI_COMM_NULL;
        peers.gen = gen;
    }
    for (int i = 0; i < PEER_CACHE; i++)
        if (peers.comm[i] == comm) return peers.n[i];
    int inter = 0, n = 0;
    PMPI_Comm_test_inter(comm, &inter);
    if (inter) PMPI_Comm_remote_size(comm, &n);
    else PMPI_Comm_size(comm, &n);
    int k = peers.next++ % PEER_CACHE;
    peers.comm[k] = comm;
    peers.n[k] = n;
    return n;
}

static void rank_ok(msc_call *c, int r, int limit, int any_ok, uint64_t role)
{
    if (r == MPI_PROC_NULL || (any_ok && r == MPI_ANY_SOURCE)) return;
    if (r < 0 || r >= limit) finding_role(c, MSC_CHECK_RANK_OUT_OF_RANGE, role, r, limit);
}

static void tag_ok(msc_call *c, int tag, int any_ok, uint64_t role)
{
    if (any_ok && tag == MPI_ANY_TAG) return;
    if (tag < 0 || tag > msc_tag_ub) finding_role(c, MSC_CHECK_INVALID_TAG, role, tag, msc_tag_ub);
}

/* kind: 0 send, 1 receive (or probe), 2 send and receive. */
void msc_check_p2p(msc_call *c, const msc_args *a, int kind)
{
    if (!msc_checks_on) return;
    uint64_t m = msc_role_mask[c->func];
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
    if (limit >= 0) {
        if (m & MSC_ROLE_DEST) rank_ok(c, a->dest, limit, 0, MSC_ROLE_DEST);
        if (m & MSC_ROLE_SOURCE) rank_ok(c, a->source, limit, 1, MSC_ROLE_SOURCE);
    }
    if (m & MSC_ROLE_TAG) tag_ok(c, a->tag, kind == 1, MSC_ROLE_TAG);
    if (m & MSC_ROLE_STAG) tag_ok(c, a->stag, 0, MSC_ROLE_STAG);
    if (m & MSC_ROLE_RTAG) tag_ok(c, a->rtag, 1, MSC_ROLE_RTAG);
    flush_findings();
}

void msc_check_coll(msc_call *c, const msc_args *a)
{
    if (!msc_checks_on) return;
    uint64_t m = msc_role_mask[c->func];
    if ((m & MSC_ROLE_COMM) && comm_ok(c, a->comm) && (m & MSC_ROLE_ROOT)) {
        int inter = 0, n = 0;
        PMPI_Comm_test_inter(a->comm, &inter);
        if (inter) {
            PMPI_Comm_remote_size(a->comm, &n);
            if (a->root != MPI_ROOT && a->root != MPI_PROC_NULL && (a->root < 0 || a->root >= n))
                finding_role(c, MSC_CHECK_ROOT_OUT_OF_RANGE, MSC_ROLE_ROOT, a->root, n);
        } else {
            PMPI_Comm_size(a->comm, &n);
            if (a->root < 0 || a->root >= n) finding_role(c, MSC_CHECK_ROOT_OUT_OF_RANGE, MSC_ROLE_ROOT, a->root, n);
        }
    }
    if (m & MSC_ROLE_COUNT) count_ok(c, a->count, MSC_ROLE_COUNT);
    int dt = (m & MSC_ROLE_DATATYPE) ? dtype_ok(c, a->datatype, MSC_ROLE_DATATYPE) : 0;
    if (m & MSC_ROLE_OP) {
        if (a->op == MPI_OP_NULL) {
            finding_role(c, MSC_CHECK_NULL_OP, MSC_ROLE_OP, 0, 0);
        } else if (dt) {
            int bt = msc_basic_type_id(a->datatype), op = -1;
            for (int i = 0; i < MSC_OPID_COUNT; i++)
                if (msc_ops[i] == a->op) op = i;
            if (bt >= 0 && op >= 0 && !msc_op_allows[op][bt])
                finding_role(c, MSC_CHECK_OP_DATATYPE, MSC_ROLE_OP, op, bt);
        }
    }
    /* MPI_IN_PLACE is never a receive buffer, except at the root of a scatter. */
    if ((m & MSC_ROLE_RBUF) && a->rbuf == MPI_IN_PLACE && c->func != MSC_FN_MPI_Scatter &&
        c->func != MSC_FN_MPI_Scatterv && c->func != MSC_FN_MPI_Iscatter && c->func != MSC_FN_MPI_Iscatterv)
        finding_role(c, MSC_CHECK_IN_PLACE_NOT_ALLOWED, MSC_ROLE_RBUF, -1, 0);
    flush_findings();
}

void msc_check_requests(msc_call *c, const msc_args *a)
{
    if (!msc_checks_on) return;
    uint64_t m = msc_role_mask[c->func];
    if (m & MSC_ROLE_REQUEST) {
        /* Waiting on or testing MPI_REQUEST_NULL is allowed; starting, cancelling or freeing it is not. */
        int null_ok = c->func == MSC_FN_MPI_Wait || c->func == MSC_FN_MPI_Test;
        if (!a->request_p || (!null_ok && a->request == MPI_REQUEST_NULL))
            finding_role(c, MSC_CHECK_NULL_REQUEST, MSC_ROLE_REQUEST, 0, 0);
    }
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

/* ---- send-buffer checksums ---- */
static uint64_t checksum(const unsigned char *p, size_t n)
{
    uint64_t h = 0x9E3779B97F4A7C15ull ^ n;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t v;
        memcpy(&v, p + i, 8);
        h = (h ^ v) * 0x100000001B3ull;
        h ^= h >> 29;
    }
    for (; i < n; i++) h = (h ^ p[i]) * 0x100000001B3ull;
    return h;
}

/* Only contiguous layouts are summed: for a type with holes, the holes are not part of the message and the
 * program may legally write them while the send is pending. */
void msc_checksum_post(msc_call *c, const msc_args *a, MPI_Request req)
{
    (void)c;
    if (!msc_checks_on || req == MPI_REQUEST_NULL || a->count <= 0 || !a->sbuf || a->sbuf == MPI_IN_PLACE) return;
    if (a->datatype == MPI_DATATYPE_NULL) return;
    int size = 0;
    MPI_Aint lb, extent, tlb, textent;
    if (PMPI_Type_size(a->datatype, &size) != MPI_SUCCESS || size <= 0) return;
    if (PMPI_Type_get_extent(a->datatype, &lb, &extent) != MPI_SUCCESS) return;
    if (PMPI_Type_get_true_extent(a->datatype, &tlb, &textent) != MPI_SUCCESS) return;
    if (extent != size || textent != size) return;
    const unsigned char *start = (const unsigned char *)a->sbuf + tlb;
    size_t len = (size_t)a->count * (size_t)size;
    slot *s = tbl_put(sends, (uint64_t)msc_w_MPI_Request(req));
    if (!s) return;
    atomic_store(&s->v[0], (int64_t)(intptr_t)start);
    atomic_store(&s->v[1], (int64_t)len);
    atomic_store(&s->v[2], (int64_t)checksum(start, len));
    atomic_fetch_add(&msc_checksums_pending, 1);
}

void msc_checksum_complete(msc_call *c, MPI_Request req)
{
    slot *s = tbl_find(sends, (uint64_t)msc_w_MPI_Request(req));
    if (!s) return;
    const unsigned char *start = (const unsigned char *)(intptr_t)atomic_load(&s->v[0]);
    size_t len = (size_t)atomic_load(&s->v[1]);
    uint64_t sum = (uint64_t)atomic_load(&s->v[2]);
    atomic_store(&s->key, 0);
    atomic_fetch_sub(&msc_checksums_pending, 1);
    if (checksum(start, len) != sum)
        msc_finding(c, MSC_CHECK_SEND_BUFFER_MODIFIED, -1, msc_w_MPI_Request(req), (int64_t)(intptr_t)start,
                    (int64_t)len);
    found = 0; /* nothing to flush early: this finding is about a call that already completed */
}
