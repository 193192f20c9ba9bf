/* Descriptive records: COMM (members as world ranks), DTYPE (size, extents, type signature) and OP, for the
 * predefined handles at MPI_Init and for every handle created later, right after the creating call returns.
 * Runs only on handle creation, never on the communication path, so it may allocate and make PMPI calls. */
#include <stdlib.h>
#include <string.h>

#include "msc_shim.h"

#define MSC_SIG_MAX 1024
/* The layout of a committed type with gaps: at most this many blocks, for a true extent up to this size. */
#define MSC_LAYOUT_MAX 256
#define MSC_LAYOUT_SPAN (1 << 20)

MPI_Datatype msc_basic_types[MSC_BT_COUNT];
MPI_Op msc_ops[MSC_OPID_COUNT];
static MPI_Group world_group = MPI_GROUP_NULL;

/* Set once the tables above hold MPI's handles (msc_describe_init); until then nothing is remembered. */
static _Atomic int tables_filled;

/* The last handle each thread asked about and its answer: a program passes the same datatype and op call after
 * call, and the searches walk up to 69 and 14 entries. A predefined handle never changes and a derived one never
 * becomes predefined, so an answer stays right, -1 included. */
static __thread struct {
    MPI_Datatype t;
    int t_id; /* -2: nothing remembered */
    MPI_Op op;
    int op_id;
} last_asked __attribute__((tls_model("initial-exec"))) = { 0, -2, 0, -2 };

int msc_basic_type_id(MPI_Datatype t)
{
    if (t == MPI_DATATYPE_NULL) return -1;
    if (last_asked.t_id != -2 && last_asked.t == t) return last_asked.t_id;
    int id = -1;
    for (int i = 0; i < MSC_BT_COUNT && id < 0; i++)
        if (msc_basic_types[i] == t) id = i;
    if (atomic_load_explicit(&tables_filled, memory_order_acquire)) {
        last_asked.t = t;
        last_asked.t_id = id;
    }
    return id;
}

int msc_op_id(MPI_Op op)
{
    if (op == MPI_OP_NULL) return -1;
    if (last_asked.op_id != -2 && last_asked.op == op) return last_asked.op_id;
    int id = -1;
    for (int i = 0; i < MSC_OPID_COUNT && id < 0; i++)
        if (msc_ops[i] == op) id = i;
    if (atomic_load_explicit(&tables_filled, memory_order_acquire)) {
        last_asked.op = op;
        last_asked.op_id = id;
    }
    return id;
}

/* ---- COMM ---- */
static int *translate(MPI_Group g, int n)
{
    int *in = calloc((size_t)n + 1, sizeof *in), *out = calloc((size_t)n + 1, sizeof *out);
    if (!in || !out) {
        free(in);
        free(out);
        return NULL;
    }
    for (int i = 0; i < n; i++) in[i] = i;
    if (PMPI_Group_translate_ranks(g, n, in, world_group, out) != MPI_SUCCESS)
        for (int i = 0; i < n; i++) out[i] = -1;
    free(in);
    return out;
}

void msc_describe_comm(MPI_Comm comm, MPI_Comm parent, uint32_t seq, uint64_t time)
{
    msc_describe_comm_created(comm, parent, seq, seq, time);
}

static void describe_comm(int64_t word, MPI_Comm comm, MPI_Comm parent, uint32_t creator_seq, uint32_t seq,
                          uint64_t time);

void msc_describe_comm_created(MPI_Comm comm, MPI_Comm parent, uint32_t creator_seq, uint32_t seq, uint64_t time)
{
    describe_comm(msc_w_MPI_Comm(comm), comm, parent, creator_seq, seq, time);
}

/* A file is described as a communicator with the file handle's word and the opening communicator's members (its
 * parent): collective file calls then match like that communicator's collectives, but in their own order, as MPI
 * orders collective I/O per file handle. */
void msc_file_opened(msc_call *c, MPI_File fh, MPI_Comm comm)
{
    describe_comm(msc_w_MPI_File(fh), comm, comm, c->seq, c->seq, msc_stamp());
}

/* This rank's neighbours in the communicator's process topology, in the order of its neighbourhood collectives'
 * blocks (MPI-3.1 §7.6): sources in nb[0 .. *in), destinations in nb[*in .. *in + *out), communicator ranks, -1
 * for MPI_PROC_NULL (a non-periodic Cartesian end). Asked of MPI once, when the communicator is described, so that
 * the analyzer knows the neighbours of topologies whose creating call does not name them (MPI_Cart_sub,
 * MPI_Dist_graph_create). NULL when it has none or MPI does not say. */
static int *topo_neighbours(MPI_Comm comm, int rank, int *in, int *out)
{
    int topo = MPI_UNDEFINED;
    *in = *out = 0;
    if (PMPI_Topo_test(comm, &topo) != MPI_SUCCESS) return NULL;
    int *nb = NULL;
    if (topo == MPI_CART) {
        int nd = 0;
        if (PMPI_Cartdim_get(comm, &nd) != MPI_SUCCESS || nd <= 0 || !(nb = calloc((size_t)nd * 4, sizeof *nb)))
            return NULL;
        for (int d = 0; d < nd; d++) {
            int src = MPI_PROC_NULL, dst = MPI_PROC_NULL;
            if (PMPI_Cart_shift(comm, d, 1, &src, &dst) != MPI_SUCCESS) {
                free(nb);
                return NULL;
            }
            /* Each dimension: the neighbour below, then the one above, for sources and destinations alike. */
            nb[2 * d] = nb[2 * nd + 2 * d] = src == MPI_PROC_NULL ? -1 : src;
            nb[2 * d + 1] = nb[2 * nd + 2 * d + 1] = dst == MPI_PROC_NULL ? -1 : dst;
        }
        *in = *out = 2 * nd;
    } else if (topo == MPI_GRAPH) {
        int k = 0;
        if (PMPI_Graph_neighbors_count(comm, rank, &k) != MPI_SUCCESS || k < 0 ||
            !(nb = calloc((size_t)k * 2 + 1, sizeof *nb)))
            return NULL;
        if (PMPI_Graph_neighbors(comm, rank, k, nb) != MPI_SUCCESS) {
            free(nb);
            return NULL;
        }
        for (int i = 0; i < k; i++) nb[k + i] = nb[i];
        *in = *out = k;
    } else if (topo == MPI_DIST_GRAPH) {
        int i = 0, o = 0, weighted = 0;
        if (PMPI_Dist_graph_neighbors_count(comm, &i, &o, &weighted) != MPI_SUCCESS || i < 0 || o < 0) return NULL;
        int *w = calloc((size_t)i + (size_t)o + 1, sizeof *w);
        nb = calloc((size_t)i + (size_t)o + 1, sizeof *nb);
        /* Weights are asked for whatever the graph was made with: MPI_UNWEIGHTED is allowed only for a graph made
         * without them. */
        if (!w || !nb || PMPI_Dist_graph_neighbors(comm, i, nb, w, o, nb + i, w + i) != MPI_SUCCESS) {
            free(w);
            free(nb);
            return NULL;
        }
        free(w);
        *in = i;
        *out = o;
    } else {
        return NULL;
    }
    return nb;
}

static void describe_comm(int64_t word, MPI_Comm comm, MPI_Comm parent, uint32_t creator_seq, uint32_t seq,
                          uint64_t time)
{
    if (comm == MPI_COMM_NULL || !msc_mpi_ready) return;
    int size = 0, rank = -1, inter = 0, rsize = 0;
    PMPI_Comm_size(comm, &size);
    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_test_inter(comm, &inter);
    MPI_Group g = MPI_GROUP_NULL, rg = MPI_GROUP_NULL;
    PMPI_Comm_group(comm, &g);
    int *members = translate(g, size), *remote = NULL;
    if (inter) {
        PMPI_Comm_remote_size(comm, &rsize);
        PMPI_Comm_remote_group(comm, &rg);
        remote = translate(rg, rsize);
        PMPI_Group_free(&rg);
    }
    PMPI_Group_free(&g);
    /* A communicator's own topology (not a file's, described with its opening communicator). */
    int in = 0, out = 0, *nb = NULL;
    if (!inter && members && word == msc_w_MPI_Comm(comm)) nb = topo_neighbours(comm, rank, &in, &out);
    int degrees[2] = { in, out };
    /* Word 5: bit 0 an intercommunicator, bit 1 the neighbours follow the members (records.json). */
    int64_t w[7] = { word, size, rank, msc_w_MPI_Comm(parent), creator_seq, (inter ? 1 : 0) | (nb ? 2 : 0), rsize };
    msc_arr a[4] = { { MSC_ARR_INT | MSC_ARR_RAW, members, members ? size : 0 },
                     { MSC_ARR_INT | MSC_ARR_RAW, remote, remote ? rsize : 0 },
                     { MSC_ARR_INT | MSC_ARR_RAW, degrees, nb ? 2 : 0 },
                     { MSC_ARR_INT | MSC_ARR_RAW, nb, nb ? in + out : 0 } };
    msc_emit(MSC_KIND_COMM, 0, 0, seq, time, 0, w, 7, a, 4);
    free(nb);
    free(members);
    free(remote);
}

/* ---- DTYPE: the type signature as a run-length list of (basic type id, count) ---- */
typedef struct sig {
    int64_t pairs[2 * MSC_SIG_MAX];
    int n;
    int truncated;
} sig;

static void sig_push(sig *s, int64_t id, int64_t count)
{
    if (count <= 0) return;
    if (s->n && s->pairs[2 * s->n - 2] == id) {
        s->pairs[2 * s->n - 1] += count;
    } else if (s->n < MSC_SIG_MAX) {
        s->pairs[2 * s->n] = id;
        s->pairs[2 * s->n + 1] = count;
        s->n++;
    } else {
        s->truncated = 1;
    }
}

static void sig_walk(MPI_Datatype t, sig *s, int depth);

/* Appends `times` copies of child's signature; sig_push merges runs across the copies' boundaries. */
static void sig_child(MPI_Datatype child, int64_t times, sig *s, int depth)
{
    if (times <= 0) return;
    sig *c = malloc(sizeof *c);
    if (!c) {
        s->truncated = 1;
        return;
    }
    c->n = 0;
    c->truncated = 0;
    sig_walk(child, c, depth + 1);
    if (c->truncated) s->truncated = 1;
    if (c->n == 1) {
        sig_push(s, c->pairs[0], c->pairs[1] * times);
    } else {
        /* Each copy of a multi-run signature adds at least one run, so this stops at MSC_SIG_MAX. */
        for (int64_t t = 0; t < times && !s->truncated; t++)
            for (int i = 0; i < c->n; i++) sig_push(s, c->pairs[2 * i], c->pairs[2 * i + 1]);
    }
    free(c);
}

static void free_if_derived(MPI_Datatype t)
{
    int ni, na, nd, comb;
    if (PMPI_Type_get_envelope(t, &ni, &na, &nd, &comb) == MPI_SUCCESS && comb != MPI_COMBINER_NAMED)
        PMPI_Type_free(&t);
}

static void sig_walk(MPI_Datatype t, sig *s, int depth)
{
    int ni = 0, na = 0, nd = 0, comb = 0, size = 0;
    PMPI_Type_size(t, &size);
    if (depth > 32 || PMPI_Type_get_envelope(t, &ni, &na, &nd, &comb) != MPI_SUCCESS) {
        sig_push(s, MSC_BT_MPI_BYTE, size);
        return;
    }
    if (comb == MPI_COMBINER_NAMED) {
        int id = msc_basic_type_id(t);
        /* A predefined type the spec does not list: counted as bytes, which still matches sizes. */
        if (id < 0) sig_push(s, MSC_BT_MPI_BYTE, size);
        else sig_push(s, id, 1);
        return;
    }
    int *ints = malloc((size_t)(ni + 1) * sizeof *ints);
    MPI_Aint *addrs = malloc((size_t)(na + 1) * sizeof *addrs);
    MPI_Datatype *types = malloc((size_t)(nd + 1) * sizeof *types);
    if (!ints || !addrs || !types ||
        PMPI_Type_get_contents(t, ni, na, nd, ints, addrs, types) != MPI_SUCCESS) {
        free(ints);
        free(addrs);
        free(types);
        sig_push(s, MSC_BT_MPI_BYTE, size);
        return;
    }
    int64_t times = -1;
    switch (comb) {
    case MPI_COMBINER_DUP:
    case MPI_COMBINER_RESIZED: times = 1; break;
    case MPI_COMBINER_CONTIGUOUS: times = ints[0]; break;
    case MPI_COMBINER_VECTOR:
    case MPI_COMBINER_HVECTOR:
    case MPI_COMBINER_INDEXED_BLOCK:
    case MPI_COMBINER_HINDEXED_BLOCK: times = (int64_t)ints[0] * ints[1]; break;
    case MPI_COMBINER_INDEXED:
    case MPI_COMBINER_HINDEXED:
        times = 0;
        for (int i = 0; i < ints[0]; i++) times += ints[1 + i];
        break;
    case MPI_COMBINER_SUBARRAY:
        times = 1;
        for (int i = 0; i < ints[0]; i++) times *= ints[1 + ints[0] + i];
        break;
    case MPI_COMBINER_STRUCT:
        for (int i = 0; i < ints[0]; i++) sig_child(types[i], ints[1 + i], s, depth);
        break;
    default: {
        /* DARRAY and anything exotic: as many copies of the element type as the size holds. */
        int csize = 0;
        if (nd > 0) PMPI_Type_size(types[nd - 1], &csize);
        if (nd > 0 && csize > 0) times = size / csize;
        else sig_push(s, MSC_BT_MPI_BYTE, size);
        if (nd > 0 && csize > 0) {
            sig_child(types[nd - 1], times, s, depth);
            times = -1;
        }
    }
    }
    if (times >= 0 && nd > 0) sig_child(types[0], times, s, depth);
    for (int i = 0; i < nd; i++) free_if_derived(types[i]);
    free(ints);
    free(addrs);
    free(types);
}

/* The memory one element of committed type t touches, as (offset from the true lb, length) blocks in
 * increasing order: unpacks zeros into a buffer of 0xff bytes one true extent long, and reads back which bytes
 * were written. Returns the number of blocks, 0 when not known (too large, too many blocks, MPI refused). */
static int layout_of(MPI_Datatype t, MPI_Aint tlb, MPI_Aint textent, int64_t *blocks)
{
    int psize = 0, pos = 0, n = 0;
    if (textent <= 0 || textent > MSC_LAYOUT_SPAN || PMPI_Pack_size(1, t, MPI_COMM_SELF, &psize) != MPI_SUCCESS)
        return 0;
    unsigned char *mem = malloc((size_t)textent);
    unsigned char *packed = calloc((size_t)psize + 1, 1);
    if (mem && packed) {
        memset(mem, 0xff, (size_t)textent);
        /* Element 0 starts tlb bytes before its first byte; the pointer is only offset back by MPI. */
        void *origin = (void *)((uintptr_t)mem - (uintptr_t)tlb);
        if (PMPI_Unpack(packed, psize, &pos, origin, 1, t, MPI_COMM_SELF) != MPI_SUCCESS) n = -1;
        for (MPI_Aint i = 0; i < textent && n >= 0;) {
            if (mem[i]) {
                i++;
                continue;
            }
            MPI_Aint j = i;
            while (j < textent && !mem[j]) j++;
            if (n == MSC_LAYOUT_MAX) {
                n = -1;
            } else {
                blocks[2 * n] = i;
                blocks[2 * n + 1] = j - i;
                n++;
            }
            i = j;
        }
    }
    free(mem);
    free(packed);
    return n < 0 ? 0 : n;
}

void msc_describe_datatype(MPI_Datatype t, int committed, uint32_t seq, uint64_t time)
{
    if (t == MPI_DATATYPE_NULL || !msc_mpi_ready) return;
    static __thread sig *s;
    if (!s && !(s = malloc(sizeof *s))) return;
    s->n = 0;
    s->truncated = 0;
    int size = 0;
    MPI_Aint lb = 0, extent = 0, tlb = 0, textent = 0;
    PMPI_Type_size(t, &size);
    PMPI_Type_get_extent(t, &lb, &extent);
    PMPI_Type_get_true_extent(t, &tlb, &textent);
    sig_walk(t, s, 0);
    int64_t w[7] = { msc_w_MPI_Datatype(t), size, lb, extent, tlb, textent, committed };
    int flags = s->truncated ? MSC_DTYPE_TRUNCATED : 0;
    /* A committed type with gaps also says which bytes an element touches (the buffer-overlap check). */
    static __thread int64_t *blocks;
    int nblocks = 0;
    if (committed && size != textent && (blocks || (blocks = malloc(2 * MSC_LAYOUT_MAX * sizeof *blocks))))
        nblocks = layout_of(t, tlb, textent, blocks);
    if (nblocks > 0) {
        msc_arr a[2] = { { MSC_ARR_I64, s->pairs, 2 * s->n }, { MSC_ARR_I64 | MSC_ARR_RAW, blocks, 2 * nblocks } };
        msc_emit(MSC_KIND_DTYPE, flags | MSC_DTYPE_LAYOUT, 0, seq, time, 0, w, 7, a, 2);
        return;
    }
    msc_arr a = { MSC_ARR_I64 | MSC_ARR_RAW, s->pairs, 2 * s->n };
    msc_emit(MSC_KIND_DTYPE, flags, 0, seq, time, 0, w, 7, &a, 1);
}

void msc_describe_op(MPI_Op op, int commute, uint32_t seq, uint64_t time)
{
    int id = -1;
    for (int i = 0; i < MSC_OPID_COUNT; i++)
        if (msc_ops[i] == op && op != MPI_OP_NULL) id = i;
    int64_t w[3] = { msc_w_MPI_Op(op), id, commute };
    msc_emit(MSC_KIND_OP, 0, 0, seq, time, 0, w, 3, NULL, 0);
}

/* Right after PMPI_Init: the predefined communicators, datatypes and ops. */
void msc_describe_init(uint32_t seq, uint64_t time)
{
    msc_fill_basic_types(msc_basic_types);
    msc_fill_ops(msc_ops);
    atomic_store_explicit(&tables_filled, 1, memory_order_release);
    PMPI_Comm_group(MPI_COMM_WORLD, &world_group);
    msc_describe_comm(MPI_COMM_WORLD, MPI_COMM_NULL, 0, time);
    msc_describe_comm(MPI_COMM_SELF, MPI_COMM_NULL, 0, time);
    for (int i = 0; i < MSC_BT_COUNT; i++)
        if (msc_basic_types[i] != MPI_DATATYPE_NULL) msc_describe_datatype(msc_basic_types[i], 1, 0, time);
    for (int i = 0; i < MSC_OPID_COUNT; i++)
        if (msc_ops[i] != MPI_OP_NULL) msc_describe_op(msc_ops[i], 1, 0, time);
    (void)seq;
}
