/* Class handlers: what a call of each class of spec/mpi-api.json does around PMPI besides its ENTER and EXIT.
 * pre: argument checks (FINDING records, flushed before MPI sees the call), the end of the stream for
 * Finalize and Abort. post: COMPLETE records for completed operations, descriptions of created handles,
 * send-buffer checksums. Both run on the application's thread inside the re-entry guard. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>

#include "msc_shim.h"

int msc_mpi_ready;
static _Atomic int cancels_seen;

static int flush_timeout(void)
{
    const char *t = getenv("MPISCOPE_FLUSH_TIMEOUT_MS");
    return t ? atoi(t) : 10000;
}

/* ---- COMPLETE records ---- */
/* The bytes a status says were received, as MPI_Get_count with MPI_BYTE gives them (-1 for MPI_UNDEFINED: more
 * than INT_MAX). Read from the status's public fields in the two libraries the shim is built for: the call
 * into MPI (PMPI_Get_count) cost ~25 instructions and a call per completed operation. */
static inline int64_t status_bytes(const MPI_Status *st)
{
#if defined(OPEN_MPI)
    size_t n = st->_ucount;
#elif defined(MPICH)
    /* MPICH keeps a count of more than 32 bits as count_lo and the high bits above the cancelled bit
     * (MPIR_STATUS_GET_COUNT in its mpir_status.h). */
    uint64_t n = (uint64_t)(unsigned)st->count_lo | (uint64_t)((unsigned)st->count_hi_and_cancelled >> 1) << 32;
#else
    int n = 0;
    if (PMPI_Get_count(st, MPI_BYTE, &n) != MPI_SUCCESS || n == MPI_UNDEFINED) return -1;
#endif
    return n > 0x7fffffff ? -1 : (int64_t)n;
}

/* where: the caller's variable or array entry that held req (NULL for blocking calls). */
static void complete(msc_call *c, MPI_Request req, const MPI_Request *where, const MPI_Status *st, int err,
                     int flags)
{
    /* A shared, already-complete request was reported complete when it was created; its send, if it was one,
     * is known by the variable that holds it. */
    if (msc_request_shared(req)) {
        if (atomic_load_explicit(&msc_checksums_used, memory_order_relaxed)) msc_checksum_complete(c, req, where);
        MSC_MC(msc_mc_completed(req, where, 0);)
        return;
    }
    int64_t w[6] = { msc_w_MPI_Request(req), -1, -1, 0, err, 0 };
    if (st && st != MPI_STATUS_IGNORE && err == MPI_SUCCESS) {
        int cancelled = 0;
        w[1] = msc_w_rank(st->MPI_SOURCE);
        w[2] = msc_w_tag(st->MPI_TAG);
        w[3] = status_bytes(st);
        /* Only an operation that MPI_Cancel was called on can be cancelled: no query otherwise. */
        if (atomic_load_explicit(&cancels_seen, memory_order_relaxed) &&
            PMPI_Test_cancelled(st, &cancelled) == MPI_SUCCESS)
            w[5] = cancelled != 0;
    }
    msc_complete_deferred(c, flags, w);
    MSC_MC(msc_mc_completed(req, where, 0);)
    if (req != MPI_REQUEST_NULL && atomic_load_explicit(&msc_checksums_used, memory_order_relaxed))
        msc_checksum_complete(c, req, where);
    if (req != MPI_REQUEST_NULL && err == MPI_SUCCESS &&
        atomic_load_explicit(&msc_tracked_requests, memory_order_relaxed))
        msc_requests_completed(c, req);
}

static void complete_send(msc_call *c, int dest, int tag, int rc)
{
    int64_t w[6] = { 0, msc_w_rank(dest), msc_w_tag(tag), 0, rc, 0 };
    msc_complete_deferred(c, MSC_COMPLETE_SEND, w);
}

/* The error of one entry of a multiple-completion call; MPI_ERR_PENDING means "not completed". */
static int entry_error(int rc, const MPI_Status *st)
{
    if (rc != MPI_ERR_IN_STATUS) return rc;
    return st ? st->MPI_ERROR : rc;
}

static const MPI_Status *status_at(const msc_args *a, int i)
{
    return (a->statuses && a->statuses != MPI_STATUSES_IGNORE) ? &a->statuses[i] : NULL;
}

static void complete_all(msc_call *c, msc_args *a, int rc)
{
    if (!a->req_copy) return;
    for (int i = 0; i < a->requests_n; i++) {
        if (a->req_copy[i] == MPI_REQUEST_NULL) continue;
        const MPI_Status *st = status_at(a, i);
        int err = entry_error(rc, st);
        if (err == MPI_ERR_PENDING) continue;
        complete(c, a->req_copy[i], a->requests + i, st, err, 0);
    }
}

static void complete_some(msc_call *c, msc_args *a, int rc)
{
    if (!a->req_copy || !a->outcount || *a->outcount == MPI_UNDEFINED) return;
    if (rc != MPI_SUCCESS && rc != MPI_ERR_IN_STATUS) return;
    for (int k = 0; k < *a->outcount; k++) {
        int i = a->indices[k];
        if (i < 0 || i >= a->requests_n) continue;
        const MPI_Status *st = status_at(a, k);
        complete(c, a->req_copy[i], a->requests + i, st, entry_error(rc, st), 0);
    }
}

static void complete_index(msc_call *c, msc_args *a, int rc)
{
    if (!a->req_copy || !a->index || *a->index == MPI_UNDEFINED) return;
    int i = *a->index;
    if (i >= 0 && i < a->requests_n) complete(c, a->req_copy[i], a->requests + i, a->status, rc, 0);
}

/* ---- lifecycle ---- */
void msc_post_init(msc_call *c, msc_args *a, int rc)
{
    (void)a;
    if (rc != MPI_SUCCESS) return;
    msc_mpi_ready = 1;
    msc_mark_init_thread();
    PMPI_Comm_rank(MPI_COMM_WORLD, &msc_world_rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &msc_world_size);
    int provided = MPI_THREAD_SINGLE, flag = 0;
    PMPI_Query_thread(&provided);
    /* Normalised: 0 single, 1 funneled, 2 serialized, 3 multiple. */
    msc_thread_level = provided == MPI_THREAD_MULTIPLE     ? 3
                       : provided == MPI_THREAD_SERIALIZED ? 2
                       : provided == MPI_THREAD_FUNNELED   ? 1
                                                           : 0;
    void *ub = NULL;
    if (PMPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &flag) == MPI_SUCCESS && flag && ub)
        msc_tag_ub = *(int *)ub;
    msc_heap_init();
    msc_tbl_init();
#if defined(OPEN_MPI)
    /* Open MPI's one request object for operations that complete at once (MPI_PROC_NULL peers). */
    msc_shared_request = (MPI_Request)dlsym(RTLD_DEFAULT, "ompi_request_empty");
    if (!msc_shared_request) msc_shared_request = MPI_REQUEST_NULL;
#endif
    msc_describe_init(c->seq, msc_stamp());
    MSC_MC(msc_mc_init();)
    atomic_store(&msc_before_init, 0);
    msc_attention_update();
    msc_sender_start();
    msc_lifecycle_signals();
    msc_lifecycle_errors();
    /* Every rank is in MPI_Init: the clocks are compared against rank 0's (msc_clockalign.c). */
    msc_clock_align(1);
}

void msc_pre_finalize(msc_call *c, msc_args *a)
{
    (void)c, (void)a;
    /* The second comparison of the clocks, for the drift since MPI_Init; bounded in time (msc_clockalign.c). */
    msc_clock_align(2);
    /* Everything is sent and the stream ends before MPI_Finalize: some MPIs never return from it cleanly. */
    msc_sender_finish(MSC_END_FINALIZED, 0, 0, flush_timeout());
}
void msc_post_finalize(msc_call *c, msc_args *a, int rc)
{
    (void)c, (void)a, (void)rc;
    msc_mpi_ready = 0;
    /* The connection stays open: a call after MPI_Finalize is a bug the analyzer reports (call-order). */
    atomic_store(&msc_after_finalize, 1);
    msc_attention_update();
}

void msc_pre_abort(msc_call *c, msc_args *a)
{
    (void)a;
    msc_sender_finish(MSC_END_ABORT, (int)c->w[1], 1, 2000);
}

/* ---- point-to-point ---- */
void msc_pre_send(msc_call *c, msc_args *a) { msc_check_send(c, a); }
void msc_post_send(msc_call *c, msc_args *a, int rc) { complete_send(c, a->dest, a->tag, rc); }
void msc_pre_isend(msc_call *c, msc_args *a) { msc_check_send(c, a); }
void msc_post_isend(msc_call *c, msc_args *a, int rc)
{
    if (rc == MPI_SUCCESS && a->request_out) msc_checksum_post(c, a, *a->request_out);
    MSC_MC(msc_mc_post(c, a, rc);)
}
void msc_pre_send_init(msc_call *c, msc_args *a) { msc_check_send(c, a); }
void msc_post_send_init(msc_call *c, msc_args *a, int rc)
{
    if (rc == MPI_SUCCESS && a->request_out) msc_persistent_send(c, a, *a->request_out);
    MSC_MC(msc_mc_post(c, a, rc);)
}
void msc_pre_recv(msc_call *c, msc_args *a) { msc_check_recv(c, a); }
void msc_post_recv(msc_call *c, msc_args *a, int rc) { complete(c, MPI_REQUEST_NULL, NULL, a->status, rc, 0); }
void msc_pre_irecv(msc_call *c, msc_args *a) { msc_check_recv(c, a); }
#ifdef MSC_MEMCHECK
void msc_post_irecv(msc_call *c, msc_args *a, int rc) { msc_mc_post(c, a, rc); }
#endif
void msc_pre_recv_init(msc_call *c, msc_args *a) { msc_check_recv(c, a); }
#ifdef MSC_MEMCHECK
void msc_post_recv_init(msc_call *c, msc_args *a, int rc) { msc_mc_post(c, a, rc); }
#endif

void msc_pre_sendrecv(msc_call *c, msc_args *a) { msc_check_p2p(c, a, 2); }
/* One COMPLETE, for the receive half: the engine reads a request-0 COMPLETE as the call's receive. */
void msc_post_sendrecv(msc_call *c, msc_args *a, int rc) { complete(c, MPI_REQUEST_NULL, NULL, a->status, rc, 0); }
void msc_pre_sendrecv_replace(msc_call *c, msc_args *a) { msc_check_p2p(c, a, 2); }
void msc_post_sendrecv_replace(msc_call *c, msc_args *a, int rc) { msc_post_sendrecv(c, a, rc); }

void msc_pre_probe(msc_call *c, msc_args *a) { msc_check_p2p(c, a, 1); }
void msc_post_probe(msc_call *c, msc_args *a, int rc) { complete(c, MPI_REQUEST_NULL, NULL, a->status, rc, MSC_COMPLETE_PROBE); }
void msc_pre_iprobe(msc_call *c, msc_args *a) { msc_check_p2p(c, a, 1); }
void msc_post_iprobe(msc_call *c, msc_args *a, int rc)
{
    if (c->xflags & MSC_FLAG_TRUE) complete(c, MPI_REQUEST_NULL, NULL, a->status, rc, MSC_COMPLETE_PROBE);
}
void msc_pre_mprobe(msc_call *c, msc_args *a) { msc_check_p2p(c, a, 1); }
void msc_post_mprobe(msc_call *c, msc_args *a, int rc) { msc_post_probe(c, a, rc); }
void msc_pre_improbe(msc_call *c, msc_args *a) { msc_check_p2p(c, a, 1); }
void msc_post_improbe(msc_call *c, msc_args *a, int rc) { msc_post_iprobe(c, a, rc); }
void msc_pre_mrecv(msc_call *c, msc_args *a) { msc_check_p2p(c, a, 1); }
void msc_post_mrecv(msc_call *c, msc_args *a, int rc) { complete(c, MPI_REQUEST_NULL, NULL, a->status, rc, 0); }
void msc_pre_imrecv(msc_call *c, msc_args *a) { msc_check_p2p(c, a, 1); }
#ifdef MSC_MEMCHECK
void msc_post_imrecv(msc_call *c, msc_args *a, int rc) { msc_mc_post(c, a, rc); }
#endif

/* ---- completion ---- */
void msc_pre_wait(msc_call *c, msc_args *a) { msc_check_requests(c, a); }
void msc_post_wait(msc_call *c, msc_args *a, int rc)
{
    if (a->request != MPI_REQUEST_NULL) complete(c, a->request, a->request_p, a->status, rc, 0);
}
void msc_pre_test(msc_call *c, msc_args *a) { msc_check_requests(c, a); }
void msc_post_test(msc_call *c, msc_args *a, int rc)
{
    if ((c->xflags & MSC_FLAG_TRUE) && a->request != MPI_REQUEST_NULL)
        complete(c, a->request, a->request_p, a->status, rc, 0);
}
void msc_pre_waitall(msc_call *c, msc_args *a) { msc_check_requests(c, a); }
void msc_post_waitall(msc_call *c, msc_args *a, int rc) { complete_all(c, a, rc); }
void msc_pre_testall(msc_call *c, msc_args *a) { msc_check_requests(c, a); }
void msc_post_testall(msc_call *c, msc_args *a, int rc)
{
    if (c->xflags & MSC_FLAG_TRUE || rc == MPI_ERR_IN_STATUS) complete_all(c, a, rc);
}
void msc_pre_waitany(msc_call *c, msc_args *a) { msc_check_requests(c, a); }
void msc_post_waitany(msc_call *c, msc_args *a, int rc) { complete_index(c, a, rc); }
void msc_pre_testany(msc_call *c, msc_args *a) { msc_check_requests(c, a); }
void msc_post_testany(msc_call *c, msc_args *a, int rc)
{
    if (c->xflags & MSC_FLAG_TRUE) complete_index(c, a, rc);
}
void msc_pre_waitsome(msc_call *c, msc_args *a) { msc_check_requests(c, a); }
void msc_post_waitsome(msc_call *c, msc_args *a, int rc) { complete_some(c, a, rc); }
void msc_pre_testsome(msc_call *c, msc_args *a) { msc_check_requests(c, a); }
void msc_post_testsome(msc_call *c, msc_args *a, int rc) { complete_some(c, a, rc); }
void msc_pre_request_free(msc_call *c, msc_args *a) { msc_check_requests(c, a); }
void msc_post_request_free(msc_call *c, msc_args *a, int rc)
{
    (void)c;
    /* a->request is the handle as it was at entry (MPI has set the caller's variable to NULL since). */
    if (rc == MPI_SUCCESS) msc_requests_freed(a->request, a->request_p);
    /* A freed active request's buffer stays MPI's until an unseen completion: the memcheck mode stops
     * watching it rather than risk a false alarm after that completion. */
    MSC_MC(if (rc == MPI_SUCCESS) msc_mc_completed(a->request, a->request_p, 1);)
}
void msc_pre_cancel(msc_call *c, msc_args *a)
{
    atomic_store_explicit(&cancels_seen, 1, memory_order_relaxed);
    msc_check_requests(c, a);
}
void msc_pre_start(msc_call *c, msc_args *a) { msc_check_requests(c, a); }
void msc_post_start(msc_call *c, msc_args *a, int rc)
{
    (void)c;
    if (rc == MPI_SUCCESS) msc_requests_started(&a->request, 1);
    MSC_MC(if (rc == MPI_SUCCESS) msc_mc_started(c, &a->request, 1);)
}
void msc_pre_startall(msc_call *c, msc_args *a) { msc_check_requests(c, a); }
void msc_post_startall(msc_call *c, msc_args *a, int rc)
{
    (void)c;
    if (rc == MPI_SUCCESS) msc_requests_started(a->req_copy, a->requests_n);
    MSC_MC(if (rc == MPI_SUCCESS) msc_mc_started(c, a->req_copy, a->requests_n);)
}

/* ---- collectives ---- */
void msc_pre_collective(msc_call *c, msc_args *a) { msc_check_coll(c, a); }
void msc_pre_icollective(msc_call *c, msc_args *a) { msc_check_coll(c, a); }
/* MPI-4 persistent collectives (MPI_Bcast_init…): their arguments are judged at the initialization, as a
 * nonblocking collective's at its call; each MPI_Start reuses them unchanged. */
void msc_pre_coll_init(msc_call *c, msc_args *a) { msc_check_coll(c, a); }
#ifdef MSC_MEMCHECK
void msc_post_icollective(msc_call *c, msc_args *a, int rc) { msc_mc_post(c, a, rc); }
#endif

/* ---- handles ---- */
void msc_pre_comm_create(msc_call *c, msc_args *a) { msc_check_coll(c, a); }
void msc_post_comm_create(msc_call *c, msc_args *a, int rc)
{
    if (rc != MPI_SUCCESS || !a->comm_out) return;
    /* MPI_Comm_idup's communicator may not be queried (nor even be set) before its request completes: the
     * completing call describes it (msc_requests.c). */
    if (c->func == MSC_FN_MPI_Comm_idup) {
        if (a->request_out) msc_idup_created(c, a->comm_out, a->comm, *a->request_out);
        return;
    }
    if (*a->comm_out == MPI_COMM_NULL) return;
    msc_comm_track(*a->comm_out, 0);
    msc_describe_comm(*a->comm_out, a->comm, c->seq, msc_stamp());
}
void msc_pre_comm_free(msc_call *c, msc_args *a) { msc_check_coll(c, a); }
void msc_post_comm_free(msc_call *c, msc_args *a, int rc)
{
    (void)c;
    if (rc == MPI_SUCCESS) msc_comm_track(a->comm, 1);
}

void msc_post_type_create(msc_call *c, msc_args *a, int rc)
{
    if (rc != MPI_SUCCESS || !a->datatype_out || *a->datatype_out == MPI_DATATYPE_NULL) return;
    /* MPI_Type_dup's type has the committed state of its old type (MPI-3.1 §4.1.10); a predefined one is committed. */
    int committed = c->func == MSC_FN_MPI_Type_dup && msc_dtype_state(a->datatype) != MSC_DT_CREATED;
    msc_dtype_track(*a->datatype_out, committed ? MSC_DT_COMMITTED : MSC_DT_CREATED);
    if (committed && msc_type_overlaps(*a->datatype_out)) msc_dtype_overlapping(*a->datatype_out);
    msc_describe_datatype(*a->datatype_out, committed, c->seq, msc_stamp());
}
void msc_post_type_commit(msc_call *c, msc_args *a, int rc)
{
    if (rc != MPI_SUCCESS || !a->datatype_p) return;
    msc_dtype_track(*a->datatype_p, MSC_DT_COMMITTED);
    if (msc_type_overlaps(*a->datatype_p)) msc_dtype_overlapping(*a->datatype_p);
    msc_describe_datatype(*a->datatype_p, 1, c->seq, msc_stamp());
}
void msc_post_type_free(msc_call *c, msc_args *a, int rc)
{
    (void)c;
    if (rc == MPI_SUCCESS) msc_dtype_free(a->datatype);
}

/* MPI_Type_get_contents hands out the datatypes a derived type was made from. A derived one is the handle it
 * was made with, one reference more (Open MPI and MPICH), and the program must free it with MPI_Type_free
 * (MPI-3.1 §4.1.13): that free drops the reference, not the type, which stays usable (PETSc unwraps its
 * MPI_Type_dup types that way). Only the first ntypes of the array are set (MPI_Type_get_envelope). */
void msc_type_contents(msc_call *c, const msc_args *a, int rc)
{
    (void)c;
    int ni, na, nt, combiner;
    if (rc != MPI_SUCCESS || !a->types || PMPI_Type_get_envelope(a->datatype, &ni, &na, &nt, &combiner) != MPI_SUCCESS)
        return;
    for (int i = 0; i < nt && i < a->types_n; i++) msc_dtype_reference(a->types[i]);
}
void msc_post_op_create(msc_call *c, msc_args *a, int rc)
{
    if (rc == MPI_SUCCESS && a->op_out) msc_describe_op(*a->op_out, (int)c->w[1], c->seq, msc_stamp());
}
void msc_post_buffer_attach(msc_call *c, msc_args *a, int rc)
{
    (void)c;
    if (rc == MPI_SUCCESS) {
        msc_buffer_attached(a->size);
        msc_buffer_attach_state(1);
    }
}
/* MPI_Buffer_detach returns once every buffered message has left the buffer: nothing is pending after it. */
void msc_post_buffer_detach(msc_call *c, msc_args *a, int rc)
{
    (void)c, (void)a;
    if (rc == MPI_SUCCESS) {
        msc_buffer_attached(0);
        msc_buffer_attach_state(0);
    }
}

/* ---- one-sided communication ---- */
void msc_pre_win_create(msc_call *c, msc_args *a) { msc_check_win(c, a); }
void msc_post_win_create(msc_call *c, msc_args *a, int rc)
{
    (void)c;
    if (rc == MPI_SUCCESS && a->win_out) msc_win_track(*a->win_out, a->comm, 0);
    /* MPI_Win_allocate(_shared): the pointer the program was handed (word 3 is the address of its variable). */
    MSC_MC(void *given = NULL;
           if ((c->func == MSC_FN_MPI_Win_allocate || c->func == MSC_FN_MPI_Win_allocate_shared) && c->w[3])
               given = *(void *const *)(intptr_t)c->w[3];
           if (rc == MPI_SUCCESS && a->win_out) msc_mc_win_created(*a->win_out, given);)
}
void msc_pre_win_free(msc_call *c, msc_args *a)
{
    msc_check_win(c, a);
    msc_check_win_memory(c, a);
    MSC_MC(msc_mc_win_pre(c, a);)
}
void msc_post_win_free(msc_call *c, msc_args *a, int rc)
{
    (void)c;
    /* a->win is the handle as it was at entry (MPI has set the caller's variable to MPI_WIN_NULL since). */
    if (rc == MPI_SUCCESS) msc_win_track(a->win, MPI_COMM_NULL, 1);
    MSC_MC(if (rc == MPI_SUCCESS) msc_mc_win_freed(a->win);)
}
void msc_pre_win_sync(msc_call *c, msc_args *a)
{
    msc_check_win(c, a);
    msc_check_win_memory(c, a);
    MSC_MC(msc_mc_win_pre(c, a);)
}
void msc_post_win_sync(msc_call *c, msc_args *a, int rc)
{
    if (rc == MPI_SUCCESS) msc_win_epoch(a->win, c->func);
    MSC_MC(msc_mc_win_post(c, a, rc);)
}
void msc_pre_rma(msc_call *c, msc_args *a) { msc_check_win(c, a); }
#ifdef MSC_MEMCHECK
void msc_post_rma(msc_call *c, msc_args *a, int rc) { msc_mc_post(c, a, rc); }
#endif

