/* The argument rules of spec/mpi-api.json ("rules"): one checker per rule, called by the generated wrappers with the
 * call, the index of the offending parameter and the arguments the function's "rules" entry names (gen/generate.mjs,
 * genRules). A checker only reports: it emits a FINDING per violation (msc_finding) and the wrapper flushes them
 * (msc_rules_done) before MPI sees the call, so the finding arrives even when MPI then aborts. The call is always
 * forwarded unchanged, so MPI's own error happens exactly as without the shim.
 *
 * Checkers query MPI (sizes, topology, inter/intra) only about handles that passed their null and freed checks: a
 * query about an invalid handle would itself raise MPI's error inside the shim. These calls are rare (constructors,
 * topology and group calls), so a PMPI query or two per call is fine here; nothing here runs on the hot
 * point-to-point path. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "msc_shim.h"

static void fail(msc_call *c, int check, int at, int64_t value, int64_t extra)
{
    msc_finding(c, check, at, value, extra, 0);
}

/* ---- handles ---- */

/* 1 when the communicator can be asked about (not null, not freed); reports why not otherwise. */
/* An array of n entries that MPI reads: 1 when there are entries to check; a negative n or a NULL array (with n
 * positive) is reported here, and an empty one has nothing to check. */
static int array_present(msc_call *c, int at, int n, const void *array)
{
    if (n < 0) {
        fail(c, MSC_CHECK_NEGATIVE_COUNT, at, n, 0);
        return 0;
    }
    if (n == 0) return 0;
    if (!array) {
        fail(c, MSC_CHECK_NULL_POINTER, at, 0, n);
        return 0;
    }
    return 1;
}

static int comm_valid(msc_call *c, int at, MPI_Comm comm)
{
    if (MSC_IS_NULL(MPI_Comm, comm)) {
        fail(c, MSC_CHECK_NULL_COMM, at, 0, 0);
        return 0;
    }
    if (msc_comm_freed(comm)) {
        fail(c, MSC_CHECK_FREED_COMM, at, msc_w_MPI_Comm(comm), 0);
        return 0;
    }
    return 1;
}

/* The same, silently: for rules whose communicator another rule (or the class checks) judges. */
static int comm_usable(MPI_Comm comm) { return !MSC_IS_NULL(MPI_Comm, comm) && !msc_comm_freed(comm); }

static int comm_size(MPI_Comm comm)
{
    int n = 0, inter = 0;
    PMPI_Comm_test_inter(comm, &inter);
    if (inter) PMPI_Comm_remote_size(comm, &n);
    else PMPI_Comm_size(comm, &n);
    return n;
}

/* Whether this process is the root of a rooted collective: its rank on an intracommunicator, MPI_ROOT on an
 * intercommunicator. Unknown (no root argument, or an unusable communicator) counts as the root. */
static int at_root(int root, MPI_Comm comm)
{
    if (root == MSC_NO_ROOT || !comm_usable(comm)) return 1;
    int inter = 0, me = -1;
    PMPI_Comm_test_inter(comm, &inter);
    if (inter) return root == MPI_ROOT;
    PMPI_Comm_rank(comm, &me);
    return me == root;
}

void msc_rule_comm(msc_call *c, int at, MPI_Comm comm) { comm_valid(c, at, comm); }

static void inter_is(msc_call *c, int at, MPI_Comm comm, int want)
{
    if (!comm_usable(comm)) return;
    int inter = 0;
    PMPI_Comm_test_inter(comm, &inter);
    if (!inter != !want)
        fail(c, want ? MSC_CHECK_INTRACOMM_NOT_ALLOWED : MSC_CHECK_INTERCOMM_NOT_ALLOWED, at, msc_w_MPI_Comm(comm), 0);
}
void msc_rule_intra(msc_call *c, int at, MPI_Comm comm) { inter_is(c, at, comm, 0); }
void msc_rule_inter(msc_call *c, int at, MPI_Comm comm) { inter_is(c, at, comm, 1); }

void msc_rule_topology(msc_call *c, int at, MPI_Comm comm, int kind)
{
    if (!comm_usable(comm)) return;
    int topo = MPI_UNDEFINED;
    if (PMPI_Topo_test(comm, &topo) != MPI_SUCCESS) return;
    int ok = kind == MSC_TOPO_CART         ? topo == MPI_CART
             : kind == MSC_TOPO_GRAPH      ? topo == MPI_GRAPH
             : kind == MSC_TOPO_DIST_GRAPH ? topo == MPI_DIST_GRAPH
                                           : topo != MPI_UNDEFINED;
    /* value: the topology the call needs (MSC_TOPO_*), extra: what the communicator has (0 none, 1 cart, 2 graph,
     * 3 dist graph). */
    int has = topo == MPI_CART ? 1 : topo == MPI_GRAPH ? 2 : topo == MPI_DIST_GRAPH ? 3 : 0;
    if (!ok) fail(c, MSC_CHECK_MISSING_TOPOLOGY, at, kind, has);
}

/* MPI_COMM_NULL is the class checks' finding (msc_check_coll). */
void msc_rule_user_comm(msc_call *c, int at, MPI_Comm comm)
{
    if (comm == MPI_COMM_WORLD || comm == MPI_COMM_SELF)
        fail(c, MSC_CHECK_FREE_PREDEFINED, at, msc_w_MPI_Comm(comm), 0);
}

/* ---- datatypes ---- */
static void datatype_is(msc_call *c, int at, MPI_Datatype t, int committed)
{
    if (MSC_IS_NULL(MPI_Datatype, t)) {
        fail(c, MSC_CHECK_NULL_DATATYPE, at, 0, 0);
        return;
    }
    int st = msc_dtype_state(t);
    if (st == MSC_DT_FREED) fail(c, MSC_CHECK_FREED_DATATYPE, at, msc_w_MPI_Datatype(t), 0);
    else if (committed && st == MSC_DT_CREATED) fail(c, MSC_CHECK_UNCOMMITTED_DATATYPE, at, msc_w_MPI_Datatype(t), 0);
}
void msc_rule_datatype(msc_call *c, int at, MPI_Datatype t) { datatype_is(c, at, t, 1); }
void msc_rule_datatype_defined(msc_call *c, int at, MPI_Datatype t) { datatype_is(c, at, t, 0); }

void msc_rule_datatype_unless(msc_call *c, int at, MPI_Datatype t, const void *buf, int root, MPI_Comm comm)
{
    if (buf == MPI_IN_PLACE) return;
    if (root != MSC_NO_ROOT && (root == MPI_ROOT || root == MPI_PROC_NULL)) return;
    (void)comm;
    datatype_is(c, at, t, 1);
}

void msc_rule_datatype_at_root(msc_call *c, int at, MPI_Datatype t, int root, MPI_Comm comm)
{
    if (at_root(root, comm)) datatype_is(c, at, t, 1);
}

void msc_rule_user_datatype(msc_call *c, int at, MPI_Datatype t)
{
    if (MSC_IS_NULL(MPI_Datatype, t)) fail(c, MSC_CHECK_NULL_DATATYPE, at, 0, 0);
    else if (msc_basic_type_id(t) >= 0) fail(c, MSC_CHECK_FREE_PREDEFINED, at, msc_w_MPI_Datatype(t), 0);
}

void msc_rule_commit(msc_call *c, int at, MPI_Datatype t)
{
    if (MSC_IS_NULL(MPI_Datatype, t)) fail(c, MSC_CHECK_NULL_DATATYPE, at, 0, 0);
    else if (msc_basic_type_id(t) >= 0) fail(c, MSC_CHECK_COMMIT_PREDEFINED, at, msc_w_MPI_Datatype(t), 0);
    else if (msc_dtype_state(t) == MSC_DT_COMMITTED) fail(c, MSC_CHECK_COMMIT_COMMITTED, at, msc_w_MPI_Datatype(t), 0);
}

/* ---- ops ---- */
static int predefined_op(MPI_Op op)
{
    for (int i = 0; i < MSC_OPID_COUNT; i++)
        if (msc_ops[i] == op) return 1;
    return 0;
}
void msc_rule_op(msc_call *c, int at, MPI_Op op)
{
    if (MSC_IS_NULL(MPI_Op, op)) fail(c, MSC_CHECK_NULL_OP, at, 0, 0);
}
void msc_rule_user_op(msc_call *c, int at, MPI_Op op)
{
    if (MSC_IS_NULL(MPI_Op, op)) fail(c, MSC_CHECK_NULL_OP, at, 0, 0);
    else if (predefined_op(op)) fail(c, MSC_CHECK_FREE_PREDEFINED, at, msc_w_MPI_Op(op), 0);
}

/* ---- other handles ---- */
void msc_rule_group(msc_call *c, int at, MPI_Group g)
{
    if (MSC_IS_NULL(MPI_Group, g)) fail(c, MSC_CHECK_NULL_GROUP, at, 0, 0);
}
void msc_rule_group_not_empty(msc_call *c, int at, MPI_Group g)
{
    int n = -1;
    if (!MSC_IS_NULL(MPI_Group, g) && PMPI_Group_size(g, &n) == MPI_SUCCESS && n == 0) fail(c, MSC_CHECK_EMPTY_GROUP, at, 0, 0);
}
void msc_rule_file(msc_call *c, int at, MPI_File f)
{
    if (f == MPI_FILE_NULL) fail(c, MSC_CHECK_NULL_FILE, at, 0, 0);
}
void msc_rule_win(msc_call *c, int at, MPI_Win w)
{
    if (MSC_IS_NULL(MPI_Win, w)) fail(c, MSC_CHECK_NULL_WIN, at, 0, 0);
}
void msc_rule_info(msc_call *c, int at, MPI_Info i)
{
    if (i == MPI_INFO_NULL) fail(c, MSC_CHECK_NULL_INFO, at, 0, 0);
}
void msc_rule_errhandler(msc_call *c, int at, MPI_Errhandler e)
{
    if (e == MPI_ERRHANDLER_NULL) fail(c, MSC_CHECK_NULL_ERRHANDLER, at, 0, 0);
}

/* ---- numbers ---- */
void msc_rule_count(msc_call *c, int at, int64_t n)
{
    if (n < 0) fail(c, MSC_CHECK_NEGATIVE_COUNT, at, n, 0);
}

/* Block lengths of the indexed and struct type constructors: MPI reads n of them, none may be negative (a zero
 * block is legal: it adds nothing). */
void msc_rule_counts(msc_call *c, int at, int n, const int *counts)
{
    if (n <= 0) return; /* a negative n is the count rule's, on the count parameter */
    if (!counts) {
        fail(c, MSC_CHECK_NULL_POINTER, at, 0, n);
        return;
    }
    for (int i = 0; i < n; i++)
        if (counts[i] < 0) {
            fail(c, MSC_CHECK_NEGATIVE_COUNT, at, counts[i], i); /* extra: the index of the first such entry */
            return;
        }
}

/* MPI_Win_create / MPI_Win_allocate(_shared): the unit of target displacements is a positive number of bytes. */
void msc_rule_disp_unit(msc_call *c, int at, int64_t disp_unit)
{
    if (disp_unit <= 0) fail(c, MSC_CHECK_INVALID_DISP_UNIT, at, disp_unit, 0);
}

void msc_rule_rank(msc_call *c, int at, int rank, MPI_Comm comm)
{
    if (!comm_usable(comm)) return;
    int n = comm_size(comm);
    if (rank < 0 || rank >= n) fail(c, MSC_CHECK_RANK_OUT_OF_RANGE, at, rank, n);
}

void msc_rule_split_color(msc_call *c, int at, int color)
{
    if (color < 0 && color != MPI_UNDEFINED) fail(c, MSC_CHECK_INVALID_COLOR, at, color, 0);
}

void msc_rule_logical(msc_call *c, int at, int v)
{
    if (v != 0 && v != 1) fail(c, MSC_CHECK_NOT_LOGICAL, at, v, 0);
}

void msc_rule_logicals(msc_call *c, int at, int n, const int *v)
{
    if (n <= 0) return;
    if (!v) {
        fail(c, MSC_CHECK_NULL_POINTER, at, 0, n);
        return;
    }
    for (int i = 0; i < n; i++)
        if (v[i] != 0 && v[i] != 1) {
            fail(c, MSC_CHECK_NOT_LOGICAL, at, v[i], i); /* extra: the index of the first such entry */
            return;
        }
}

void msc_rule_cart_logicals(msc_call *c, int at, MPI_Comm comm, const int *v)
{
    int topo = MPI_UNDEFINED, ndims = 0;
    if (!comm_usable(comm) || PMPI_Topo_test(comm, &topo) != MPI_SUCCESS || topo != MPI_CART) return;
    if (PMPI_Cartdim_get(comm, &ndims) != MPI_SUCCESS) return;
    msc_rule_logicals(c, at, ndims, v);
}

/* ---- topologies ---- */
void msc_rule_cart_dims(msc_call *c, int at, MPI_Comm comm, int ndims, const int *dims)
{
    if (!array_present(c, at, ndims, dims)) return;
    int64_t product = 1;
    for (int i = 0; i < ndims; i++) {
        if (dims[i] <= 0) {
            fail(c, MSC_CHECK_INVALID_DIMS, at, dims[i], i);
            return;
        }
        if (product <= INT_MAX) product *= dims[i];
    }
    if (!comm_usable(comm)) return;
    int n = comm_size(comm);
    if (product > n) fail(c, MSC_CHECK_DIMS_EXCEED_COMM, at, product, n);
}

void msc_rule_dims_create(msc_call *c, int at, int nnodes, int ndims, const int *dims)
{
    if (!array_present(c, at, ndims, dims)) return;
    int64_t fixed = 1;
    for (int i = 0; i < ndims; i++) {
        if (dims[i] < 0) {
            fail(c, MSC_CHECK_INVALID_DIMS, at, dims[i], i);
            return;
        }
        if (dims[i] > 0 && fixed <= INT_MAX) fixed *= dims[i];
    }
    if (nnodes > 0 && nnodes % fixed != 0) fail(c, MSC_CHECK_DIMS_NOT_DIVISOR, at, fixed, nnodes);
}

void msc_rule_graph_nodes(msc_call *c, int at, MPI_Comm comm, int nnodes)
{
    if (nnodes < 0) {
        fail(c, MSC_CHECK_NEGATIVE_COUNT, at, nnodes, 0);
        return;
    }
    if (!comm_usable(comm)) return;
    int n = comm_size(comm);
    if (nnodes > n) fail(c, MSC_CHECK_DIMS_EXCEED_COMM, at, nnodes, n);
}

/* ---- groups ---- */
/* A set of ranks below n, for the duplicate checks: on the stack for groups up to 64Ki ranks. */
#define SEEN_STACK_WORDS 1024
typedef struct seen {
    uint64_t stack[SEEN_STACK_WORDS];
    uint64_t *bits;
} seen;
static int seen_init(seen *s, int n)
{
    size_t words = ((size_t)n + 63) / 64;
    s->bits = words <= SEEN_STACK_WORDS ? s->stack : calloc(words, sizeof(uint64_t));
    if (s->bits == s->stack) memset(s->stack, 0, words * sizeof(uint64_t));
    return s->bits != NULL;
}
static int seen_add(seen *s, int r) /* 1 when r was there already */
{
    uint64_t m = 1ull << (r % 64), *w = &s->bits[r / 64];
    int dup = (*w & m) != 0;
    *w |= m;
    return dup;
}
static void seen_done(seen *s)
{
    if (s->bits != s->stack) free(s->bits);
}

static int group_size(MPI_Group g)
{
    int n = -1;
    if (MSC_IS_NULL(MPI_Group, g) || PMPI_Group_size(g, &n) != MPI_SUCCESS) return -1;
    return n;
}

static void group_ranks(msc_call *c, int at, int n, const int *ranks, MPI_Group g, int translate)
{
    if (!array_present(c, at, n, ranks)) return;
    int size = group_size(g);
    if (size < 0) return;
    seen s;
    int track = !translate && seen_init(&s, size);
    for (int i = 0; i < n; i++) {
        int r = ranks[i];
        if (translate && r == MPI_PROC_NULL) continue;
        if (r < 0 || r >= size) {
            fail(c, MSC_CHECK_RANK_OUT_OF_RANGE, at, r, size);
            break;
        }
        if (track && seen_add(&s, r)) {
            fail(c, MSC_CHECK_DUPLICATE_RANK, at, r, i);
            break;
        }
    }
    if (track) seen_done(&s);
}
void msc_rule_group_ranks(msc_call *c, int at, int n, const int *ranks, MPI_Group g) { group_ranks(c, at, n, ranks, g, 0); }
void msc_rule_group_ranks_or_null(msc_call *c, int at, int n, const int *ranks, MPI_Group g)
{
    group_ranks(c, at, n, ranks, g, 1);
}

void msc_rule_ranges(msc_call *c, int at, int n, int ranges[][3], MPI_Group g)
{
    if (!array_present(c, at, n, ranges)) return;
    for (int i = 0; i < n; i++)
        if (ranges[i][2] == 0) {
            fail(c, MSC_CHECK_ZERO_STRIDE, at, i, 0); /* value: the index of the triplet */
            return;
        }
    int size = group_size(g);
    if (size < 0) return;
    seen s;
    if (!seen_init(&s, size)) return;
    for (int i = 0; i < n; i++) {
        int first = ranges[i][0], last = ranges[i][1], stride = ranges[i][2];
        if (first < 0 || first >= size || last < 0 || last >= size) {
            fail(c, MSC_CHECK_RANK_OUT_OF_RANGE, at, (first < 0 || first >= size) ? first : last, size);
            break;
        }
        /* MPI: the ranks first, first + stride, … up to last; a stride of the wrong sign names first alone. */
        int dup = -1;
        for (int64_t r = first; stride > 0 ? r <= last : r >= last; r += stride)
            if (seen_add(&s, (int)r)) {
                dup = (int)r;
                break;
            }
        if (dup >= 0) {
            fail(c, MSC_CHECK_DUPLICATE_RANK, at, dup, i);
            break;
        }
    }
    seen_done(&s);
}

/* ---- memory ---- */
void msc_rule_not_null(msc_call *c, int at, const void *p)
{
    if (!p) fail(c, MSC_CHECK_NULL_POINTER, at, 0, 0);
}
void msc_rule_not_null_if(msc_call *c, int at, const void *p, int64_t n)
{
    if (!p && n > 0) fail(c, MSC_CHECK_NULL_POINTER, at, 0, n);
}
void msc_rule_not_null_at_root(msc_call *c, int at, const void *p, int root, MPI_Comm comm)
{
    if (!p && at_root(root, comm)) fail(c, MSC_CHECK_NULL_POINTER, at, 0, 0);
}
void msc_rule_not_null_unless(msc_call *c, int at, const void *p, const void *buf)
{
    if (!p && buf != MPI_IN_PLACE) fail(c, MSC_CHECK_NULL_POINTER, at, 0, 0);
}
/* A negative size is not checked here: the spec gives MPI_Win_create the count rule on its size, so that the
 * finding names the size parameter and not the base. */
void msc_rule_win_memory(msc_call *c, int at, const void *base, int64_t size)
{
    if (size > 0 && !base) fail(c, MSC_CHECK_NULL_POINTER, at, 0, size);
    /* A window larger than the object at base (a stack variable, a heap block): remote ranks reach past it. */
    else if (msc_checks_on) msc_object_bytes(c, at, base, size);
}

/* ---- the buffer of buffered sends ---- */
void msc_rule_attach(msc_call *c, int at, const void *buf, int64_t size)
{
    (void)buf;
    if (size < 0) fail(c, MSC_CHECK_NEGATIVE_COUNT, at, size, 0);
    if (msc_buffer_is_attached()) fail(c, MSC_CHECK_BUFFER_ATTACHED_TWICE, at, msc_w_addr(buf), 0);
}
void msc_rule_detach(msc_call *c, int at)
{
    if (!msc_buffer_is_attached()) fail(c, MSC_CHECK_DETACH_WITHOUT_ATTACH, at, 0, 0);
}
