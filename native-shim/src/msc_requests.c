/* Requests whose life matters to the shim beyond their COMPLETE record:
 *  - persistent sends (MPI_Send_init and its modes): the buffer, count and datatype are remembered at
 *    creation, so that each MPI_Start/MPI_Startall sums the buffer and the completion compares (checksums);
 *  - MPI_Comm_idup: MPI forbids querying the new communicator before the request completes, so its COMM
 *    record is emitted by the call that completes the request, with the idup's seq as the creating seq.
 * Both live in lock-free tables keyed by the request's word; MPI_Request_free forgets them. */
#include "msc_shim.h"

/* Requests in either table; completion paths look only while this is non-zero. */
_Atomic int msc_tracked_requests;

static msc_table persistent = MSC_TABLE(TABLE_FULL_PERSISTENT); /* [buffer, count, datatype word] */
static msc_table idups = MSC_TABLE(TABLE_FULL_IDUPS); /* [MPI_Comm * of the caller, parent comm word, idup seq] */
static _Atomic int n_persistent;

void msc_persistent_send(msc_call *c, const msc_args *a, MPI_Request req)
{
    (void)c;
    if (!msc_checks_on || req == MPI_REQUEST_NULL) return;
    msc_slot *s = msc_tbl_put(&persistent, (uint64_t)msc_w_MPI_Request(req));
    if (!s) return;
    atomic_store_explicit(&s->v[0], (int64_t)(intptr_t)a->sbuf, memory_order_relaxed);
    atomic_store_explicit(&s->v[1], a->count, memory_order_relaxed);
    atomic_store_explicit(&s->v[2], msc_hword(&a->datatype, sizeof a->datatype), memory_order_relaxed);
    atomic_store_explicit(&n_persistent, 1, memory_order_release);
}

void msc_requests_started(const MPI_Request *reqs, int n)
{
    if (!atomic_load_explicit(&n_persistent, memory_order_acquire) || !reqs) return;
    for (int i = 0; i < n; i++) {
        msc_slot *s = msc_tbl_find(&persistent, (uint64_t)msc_w_MPI_Request(reqs[i]));
        if (!s) continue;
        MPI_Datatype t;
        int64_t tw = atomic_load_explicit(&s->v[2], memory_order_relaxed);
        __builtin_memcpy(&t, &tw, sizeof t);
        msc_checksum_start(reqs[i], (const void *)(intptr_t)atomic_load_explicit(&s->v[0], memory_order_relaxed),
                           (int)atomic_load_explicit(&s->v[1], memory_order_relaxed), t);
    }
}

void msc_requests_freed(MPI_Request req, const MPI_Request *where)
{
    msc_checksum_forget(req, where);
    uint64_t k = (uint64_t)msc_w_MPI_Request(req);
    if (!k) return;
    if (atomic_load_explicit(&n_persistent, memory_order_acquire)) {
        msc_slot *s = msc_tbl_find(&persistent, k);
        if (s) msc_tbl_del(s);
    }
    if (atomic_load_explicit(&msc_tracked_requests, memory_order_acquire)) {
        msc_slot *s = msc_tbl_find(&idups, k);
        if (s) {
            msc_tbl_del(s);
            atomic_fetch_sub_explicit(&msc_tracked_requests, 1, memory_order_relaxed);
        }
    }
}

void msc_idup_created(msc_call *c, MPI_Comm *newcomm, MPI_Comm parent, MPI_Request req)
{
    /* Complete at once (a shared, already complete request): the communicator may be described now. */
    if (req == MPI_REQUEST_NULL || msc_request_shared(req)) {
        if (*newcomm != MPI_COMM_NULL) msc_describe_comm(*newcomm, parent, c->seq, msc_stamp());
        return;
    }
    msc_slot *s = msc_tbl_put(&idups, (uint64_t)msc_w_MPI_Request(req));
    if (!s) return;
    atomic_store_explicit(&s->v[0], (int64_t)(intptr_t)newcomm, memory_order_relaxed);
    atomic_store_explicit(&s->v[1], msc_w_MPI_Comm(parent), memory_order_relaxed);
    atomic_store_explicit(&s->v[2], c->seq, memory_order_relaxed);
    atomic_fetch_add_explicit(&msc_tracked_requests, 1, memory_order_release);
}

void msc_requests_completed(msc_call *c, MPI_Request req)
{
    msc_slot *s = msc_tbl_find(&idups, (uint64_t)msc_w_MPI_Request(req));
    if (!s) return;
    MPI_Comm *newcomm = (MPI_Comm *)(intptr_t)atomic_load_explicit(&s->v[0], memory_order_relaxed);
    int64_t pw = atomic_load_explicit(&s->v[1], memory_order_relaxed);
    uint32_t seq = (uint32_t)atomic_load_explicit(&s->v[2], memory_order_relaxed);
    msc_tbl_del(s);
    atomic_fetch_sub_explicit(&msc_tracked_requests, 1, memory_order_relaxed);
    MPI_Comm parent = MPI_COMM_NULL;
    if (pw) __builtin_memcpy(&parent, &pw, sizeof parent);
    /* The caller's handle variable holds the new communicator once the request completed (MPI writes it at
     * completion in some implementations, which is why the pointer, not the value, was kept). */
    if (*newcomm != MPI_COMM_NULL) {
        msc_comm_track(*newcomm, 0);
        msc_describe_comm_created(*newcomm, parent, seq, c->seq, msc_stamp());
    }
}
