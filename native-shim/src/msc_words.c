/* Helpers the generated wrappers call while copying arguments: substitute statuses, copy request arrays,
 * size the arrays whose length is the communicator's size. */
#include <stdlib.h>
#include <string.h>

#include "msc_shim.h"

/* Thread-local scratch for calls with more requests than the wrapper's local arrays hold. It only grows;
 * malloc here is off the common path (more than MSC_LOCAL_* requests in one call). */
static __thread MPI_Status *scratch_statuses;
static __thread int scratch_statuses_n;
static __thread MPI_Request *scratch_requests;
static __thread int scratch_requests_n;

MPI_Status *msc_statuses_scratch(int n)
{
    if (n > scratch_statuses_n) {
        MPI_Status *p = realloc(scratch_statuses, (size_t)n * sizeof *p);
        /* Out of memory: let MPI ignore the statuses, as the user asked. */
        if (!p) return MPI_STATUSES_IGNORE;
        scratch_statuses = p;
        scratch_statuses_n = n;
    }
    return scratch_statuses;
}

MPI_Request *msc_copy_requests_scratch(const MPI_Request *reqs, int n)
{
    if (n > scratch_requests_n) {
        MPI_Request *p = realloc(scratch_requests, (size_t)n * sizeof *p);
        if (!p) return NULL;
        scratch_requests = p;
        scratch_requests_n = n;
    }
    memcpy(scratch_requests, reqs, (size_t)n * sizeof *scratch_requests);
    return scratch_requests;
}

/* Arrays sized "by the communicator": the remote group's size on an intercommunicator. */
int msc_len_commsize(MPI_Comm comm)
{
    int n = 0, inter = 0;
    if (comm == MPI_COMM_NULL || !msc_mpi_ready) return 0;
    if (PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS) return 0;
    if (inter ? PMPI_Comm_remote_size(comm, &n) : PMPI_Comm_size(comm, &n)) return 0;
    return n;
}

/* Arrays sized by the caller's own group, also on an intercommunicator (MPI_Reduce_scatter's recvcounts: one entry
 * per process of the local group, MPI-3.1 §5.10.1). */
int msc_len_localsize(MPI_Comm comm)
{
    int n = 0;
    if (comm == MPI_COMM_NULL || !msc_mpi_ready) return 0;
    return PMPI_Comm_size(comm, &n) == MPI_SUCCESS ? n : 0;
}

/* Arrays significant only at the root (Gatherv's recvcounts, Scatterv's sendcounts). */
int msc_len_rootcommsize(MPI_Comm comm, int root)
{
    if (comm == MPI_COMM_NULL || !msc_mpi_ready) return 0;
    int inter = 0;
    if (PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS) return 0;
    if (inter) return root == MPI_ROOT ? msc_len_commsize(comm) : 0;
    int me = -1;
    if (PMPI_Comm_rank(comm, &me) != MPI_SUCCESS || me != root) return 0;
    return msc_len_commsize(comm);
}

/* The in and out degrees of a communicator with a process topology: a neighbourhood collective's blocks, one per
 * source and per destination (MPI-3.1 §7.6). 0 when it has none (the topology rule reports that). */
int msc_topo_degrees_ask(MPI_Comm comm, int *in, int *out)
{
    int topo = MPI_UNDEFINED, k = 0, me = 0, weighted = 0;
    *in = *out = 0;
    if (comm == MPI_COMM_NULL || !msc_mpi_ready || PMPI_Topo_test(comm, &topo) != MPI_SUCCESS) return 0;
    if (topo == MPI_CART) {
        if (PMPI_Cartdim_get(comm, &k) != MPI_SUCCESS) return 0;
        *in = *out = 2 * k;
        return 1;
    }
    if (topo == MPI_GRAPH) {
        if (PMPI_Comm_rank(comm, &me) != MPI_SUCCESS || PMPI_Graph_neighbors_count(comm, me, &k) != MPI_SUCCESS)
            return 0;
        *in = *out = k;
        return 1;
    }
    if (topo == MPI_DIST_GRAPH && PMPI_Dist_graph_neighbors_count(comm, in, out, &weighted) == MPI_SUCCESS) return 1;
    *in = *out = 0;
    return 0;
}

/* A neighbourhood collective's count, displacement and type arrays: one entry per source or destination. */
int msc_len_indegree(MPI_Comm comm)
{
    int in = 0, out = 0;
    msc_topo_degrees(comm, &in, &out);
    return in;
}

int msc_len_outdegree(MPI_Comm comm)
{
    int in = 0, out = 0;
    msc_topo_degrees(comm, &in, &out);
    return out;
}

/* MPI_Graph_create's edges: index[nnodes - 1] (0 when that is not a plausible count: the analyzer then does not
 * know the graph, and MPI judges the arguments). */
int msc_len_graph_edges(int nnodes, const int *index)
{
    if (nnodes <= 0 || !index) return 0;
    int n = index[nnodes - 1];
    return n < 0 || n > (1 << 20) ? 0 : n;
}

MPI_Request msc_shared_request = MPI_REQUEST_NULL;
/* Ids of shared requests, taken by each thread 64 at a time (like call seqs): a locked add per such request was the
 * one locked instruction of an 8-byte MPI_Isend to itself under Open MPI besides the ring's CAS. */
static _Atomic uint32_t shared_ids;
static __thread uint32_t tls_shared_next __attribute__((tls_model("initial-exec")));
static __thread uint32_t tls_shared_end __attribute__((tls_model("initial-exec")));

static inline uint32_t next_shared_id(void)
{
    uint32_t n = tls_shared_next;
    if (MSC_UNLIKELY(n == tls_shared_end)) {
        n = atomic_fetch_add(&shared_ids, 64) + 1;
        tls_shared_end = n + 64;
    }
    tls_shared_next = n + 1;
    return n;
}

int64_t msc_w_new_request(msc_call *c, MPI_Request r)
{
    if (!msc_request_shared(r)) return msc_w_MPI_Request(r);
    /* Bit 62 set, a counter above the handle's bits: cannot collide with a pointer or an MPICH handle. */
    int64_t id = (int64_t)(1ull << 62 | (uint64_t)next_shared_id() << 32 | (uint32_t)(uintptr_t)r);
    /* Complete the moment it was made: the call's own stamp, no second clock read. A held local call writes the
     * COMPLETE with its ENTER and EXIT, in the same reservation (msc_emit_pair). */
    if (c->held == MSC_HELD_LOCAL && msc_held_call == c && !c->done_id) {
        c->done_id = id;
        return id;
    }
    int64_t w[6] = { id, -1, -1, 0, MPI_SUCCESS, 0 };
    msc_emit_complete(0, c->func, c->seq, c->time, c->site, w);
    return id;
}

const MPI_Status msc_status_empty = { .MPI_SOURCE = MPI_ANY_SOURCE, .MPI_TAG = MPI_ANY_TAG, .MPI_ERROR = MPI_SUCCESS };
