/* Send-buffer checksums (check send-buffer-modified): the bytes a pending send will read are summed when
 * the send starts (MPI_Isend and friends, MPI_Start of a persistent send) and again when it completes; a
 * difference means the program wrote into them meanwhile. A send that MPI completed at once (small messages
 * under both MPIs) is compared at its Wait/Test too: MPI already copied the data, but the program broke
 * the rule all the same, and would lose data with a larger message or another MPI.
 *
 * Only the bytes of the message are summed: a datatype is flattened once into its list of contiguous blocks
 * (offset, length) by walking its type map with MPI_Type_get_envelope/contents, and the list is cached per
 * datatype. Holes of a vector or struct are not part of the message and the program may write them freely, so
 * they are never summed. A type the walk cannot flatten (MPI_Type_create_darray, a type map of more than
 * MAX_BLOCKS blocks or MAX_VISITS elements) is not checked at all: silent, never wrong, and named in the report's
 * "Not checked" (the note checksum-type-unflattened).
 *
 * A message of at most MPISCOPE_CHECKSUM_EXACT_BYTES bytes (default 256 KiB) is summed whole. A larger one is
 * summed over a sample of a bounded size, so that its cost does not grow with the message (two passes over a
 * 4 MiB message took ~80 us against ~29 us for the send itself): its first and last 4 KiB and SAMPLE_WINDOWS
 * windows of 64 bytes spread evenly in between (at k * size / SAMPLE_WINDOWS, k = 1 .. SAMPLE_WINDOWS - 1,
 * down to a multiple of 64 bytes of the message), 24 KiB at most per sum, in message bytes (the holes of a
 * derived type are skipped as above). A write there, or one that rewrites the buffer, is found; a write of a
 * few bytes elsewhere in a large message is not. MPISCOPE_CHECKSUM_EXACT_BYTES=all sums every message whole. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "msc_shim.h"

#define MAX_BLOCKS (1 << 16)
#define MAX_VISITS (1 << 22)

/* Set by the first send summed and never cleared: until then no completion looks for a pending send. (A count of
 * the pending sends was two locked read-modify-writes per send, ~2.4 ns each here, for a lookup saved only while
 * none was pending; the lookup of a request that is not a send is one slot compared.) */
_Atomic int msc_checksums_used;

/* A datatype's type map as contiguous byte blocks relative to the buffer, and the stride between elements. */
typedef struct layout {
    MPI_Aint extent;
    MPI_Aint size; /* bytes of one element: the sum of its blocks' lengths */
    int n;
    struct block {
        MPI_Aint off, len;
        MPI_Aint pre; /* bytes of the element's blocks before this one (in message order) */
    } b[];
} layout;

typedef struct builder {
    struct block *b;
    int n, cap, visits, failed;
    int max_visits; /* 0: MAX_VISITS */
} builder;

static void add_block(builder *k, MPI_Aint off, MPI_Aint len)
{
    if (len <= 0 || k->failed) return;
    if (++k->visits > (k->max_visits ? k->max_visits : MAX_VISITS)) {
        k->failed = 1;
        return;
    }
    if (k->n && k->b[k->n - 1].off + k->b[k->n - 1].len == off) {
        k->b[k->n - 1].len += len;
        return;
    }
    if (k->n == k->cap) {
        if (k->cap >= MAX_BLOCKS) {
            k->failed = 1;
            return;
        }
        int ncap = k->cap ? k->cap * 2 : 16;
        struct block *nb = realloc(k->b, (size_t)ncap * sizeof *nb);
        if (!nb) {
            k->failed = 1;
            return;
        }
        k->b = nb;
        k->cap = ncap;
    }
    k->b[k->n].off = off;
    k->b[k->n].len = len;
    k->b[k->n].pre = 0;
    k->n++;
}

static void walk(MPI_Datatype t, MPI_Aint disp, builder *k, int depth);

static MPI_Aint extent_of(MPI_Datatype t)
{
    MPI_Aint lb = 0, ext = 0;
    PMPI_Type_get_extent(t, &lb, &ext);
    return ext;
}

/* n copies of t, the i-th at disp + i * stride. */
static void repeat(MPI_Datatype t, MPI_Aint disp, int64_t n, MPI_Aint stride, builder *k, int depth)
{
    for (int64_t i = 0; i < n && !k->failed; i++) walk(t, disp + (MPI_Aint)i * stride, k, depth);
}

static void walk_subarray(const int *ints, MPI_Datatype old, MPI_Aint disp, builder *k, int depth)
{
    int nd = ints[0];
    const int *sizes = ints + 1, *subs = ints + 1 + nd, *starts = ints + 1 + 2 * nd;
    int c_order = ints[1 + 3 * nd] == MPI_ORDER_C;
    if (nd <= 0 || nd > 32) {
        k->failed = 1;
        return;
    }
    MPI_Aint ext = extent_of(old), stride[32];
    /* Element strides of each dimension, in elements of old: the last dimension is the fastest in C order. */
    for (int d = 0; d < nd; d++) {
        int dd = c_order ? d : nd - 1 - d;
        stride[dd] = 1;
        for (int e = d + 1; e < nd; e++) stride[dd] *= sizes[c_order ? e : nd - 1 - e];
    }
    int idx[32] = { 0 };
    for (;;) {
        MPI_Aint lin = 0;
        for (int d = 0; d < nd; d++) lin += (MPI_Aint)(starts[d] + idx[d]) * stride[d];
        walk(old, disp + lin * ext, k, depth);
        if (k->failed) return;
        int d = c_order ? nd - 1 : 0;
        for (;;) {
            if (++idx[d] < subs[d]) break;
            idx[d] = 0;
            d += c_order ? -1 : 1;
            if (d < 0 || d >= nd) return;
        }
    }
}

static void free_if_derived(MPI_Datatype t)
{
    int ni, na, nd, comb;
    if (PMPI_Type_get_envelope(t, &ni, &na, &nd, &comb) == MPI_SUCCESS && comb != MPI_COMBINER_NAMED)
        PMPI_Type_free(&t);
}

static void walk(MPI_Datatype t, MPI_Aint disp, builder *k, int depth)
{
    int ni = 0, na = 0, nd = 0, comb = 0;
    if (k->failed) return;
    if (depth > 32 || PMPI_Type_get_envelope(t, &ni, &na, &nd, &comb) != MPI_SUCCESS) {
        k->failed = 1;
        return;
    }
    if (comb == MPI_COMBINER_NAMED) {
        /* A predefined type is one block, except the pair types of MINLOC/MAXLOC which may have padding. */
        int size = 0;
        MPI_Aint tlb = 0, text = 0;
        PMPI_Type_size(t, &size);
        PMPI_Type_get_true_extent(t, &tlb, &text);
        if (text == size) add_block(k, disp + tlb, size);
        else k->failed = 1;
        return;
    }
    int *ints = malloc((size_t)(ni + 1) * sizeof *ints);
    MPI_Aint *addrs = malloc((size_t)(na + 1) * sizeof *addrs);
    MPI_Datatype *types = malloc((size_t)(nd + 1) * sizeof *types);
    if (!ints || !addrs || !types || PMPI_Type_get_contents(t, ni, na, nd, ints, addrs, types) != MPI_SUCCESS) {
        free(ints);
        free(addrs);
        free(types);
        k->failed = 1;
        return;
    }
    MPI_Aint ext = nd > 0 ? extent_of(types[0]) : 0;
    switch (comb) {
    case MPI_COMBINER_DUP:
    case MPI_COMBINER_RESIZED: walk(types[0], disp, k, depth + 1); break;
    case MPI_COMBINER_CONTIGUOUS: repeat(types[0], disp, ints[0], ext, k, depth + 1); break;
    case MPI_COMBINER_VECTOR:
        for (int i = 0; i < ints[0] && !k->failed; i++)
            repeat(types[0], disp + (MPI_Aint)i * ints[2] * ext, ints[1], ext, k, depth + 1);
        break;
    case MPI_COMBINER_HVECTOR:
        for (int i = 0; i < ints[0] && !k->failed; i++)
            repeat(types[0], disp + (MPI_Aint)i * addrs[0], ints[1], ext, k, depth + 1);
        break;
    case MPI_COMBINER_INDEXED:
        for (int i = 0; i < ints[0] && !k->failed; i++)
            repeat(types[0], disp + (MPI_Aint)ints[1 + ints[0] + i] * ext, ints[1 + i], ext, k, depth + 1);
        break;
    case MPI_COMBINER_HINDEXED:
        for (int i = 0; i < ints[0] && !k->failed; i++)
            repeat(types[0], disp + addrs[i], ints[1 + i], ext, k, depth + 1);
        break;
    case MPI_COMBINER_INDEXED_BLOCK:
        for (int i = 0; i < ints[0] && !k->failed; i++)
            repeat(types[0], disp + (MPI_Aint)ints[2 + i] * ext, ints[1], ext, k, depth + 1);
        break;
    case MPI_COMBINER_HINDEXED_BLOCK:
        for (int i = 0; i < ints[0] && !k->failed; i++)
            repeat(types[0], disp + addrs[i], ints[1], ext, k, depth + 1);
        break;
    case MPI_COMBINER_STRUCT:
        for (int i = 0; i < ints[0] && !k->failed; i++)
            repeat(types[i], disp + addrs[i], ints[1 + i], extent_of(types[i]), k, depth + 1);
        break;
    case MPI_COMBINER_SUBARRAY: walk_subarray(ints, types[0], disp, k, depth + 1); break;
    default: k->failed = 1; /* DARRAY and anything else: not checked */
    }
    for (int i = 0; i < nd; i++) free_if_derived(types[i]);
    free(ints);
    free(addrs);
    free(types);
}

/* ---- the cache of layouts, per datatype handle ---- */
/* Not a check when full: a type past the bound is flattened again at each use. */
static msc_table layouts = { .off = -1 };
/* Marks a type that cannot be flattened, so that the walk is not tried again on every send. */
static layout unflattenable;

/* The thread's last datatype and its layout: most sends of a thread use one type, and the table lookup cost
 * more than the rest of an 8-byte send's sum (callgrind, bench/shim-overhead). Every msc_layout_forget bumps
 * the generation, which empties every thread's entry (a freed type's handle may come back for another type). */
static _Atomic uint32_t layout_gen;
static __thread struct {
    uint32_t gen; /* layout_gen + 1 when filled: 0 is empty */
    MPI_Datatype t;
    const layout *l;
} last_layout __attribute__((tls_model("initial-exec")));

static const layout *layout_lookup(MPI_Datatype t);

static inline const layout *layout_of(MPI_Datatype t)
{
    uint32_t gen = atomic_load_explicit(&layout_gen, memory_order_acquire) + 1;
    if (MSC_LIKELY(last_layout.gen == gen && last_layout.t == t)) return last_layout.l;
    const layout *l = layout_lookup(t);
    last_layout.gen = gen;
    last_layout.t = t;
    last_layout.l = l;
    return l;
}

static const layout *layout_lookup(MPI_Datatype t)
{
    uint64_t key = (uint64_t)msc_w_MPI_Datatype(t);
    msc_slot *s = msc_tbl_find(&layouts, key);
    if (s) {
        const layout *l = (const layout *)(intptr_t)atomic_load_explicit(&s->v[0], memory_order_acquire);
        if (l) return l == &unflattenable ? NULL : l;
    }
    /* First use of this type: flatten it (off the common path, once per datatype). */
    builder k = { 0 };
    walk(t, 0, &k, 0);
    layout *l = &unflattenable;
    if (!k.failed) {
        l = malloc(sizeof *l + (size_t)k.n * sizeof l->b[0]);
        if (l) {
            l->extent = extent_of(t);
            l->n = k.n;
            memcpy(l->b, k.b, (size_t)k.n * sizeof l->b[0]);
            l->size = 0;
            for (int j = 0; j < k.n; j++) l->b[j].pre = l->size, l->size += l->b[j].len;
        } else {
            l = &unflattenable;
        }
    }
    free(k.b);
    /* Layouts are never freed: a send still pending may use one after its type was freed. */
    s = msc_tbl_put(&layouts, key);
    if (s) atomic_store_explicit(&s->v[0], (int64_t)(intptr_t)l, memory_order_release);
    return l == &unflattenable ? NULL : l;
}

int msc_layout_touches(MPI_Datatype t, int64_t count, int64_t off, int64_t len)
{
    const layout *l = layout_of(t);
    if (!l || l->extent <= 0) return 1;
    /* Each element is the blocks at i * extent; the access meets at most a few elements. */
    int64_t first = off / l->extent - 1, last = (off + len) / l->extent + 1;
    if (first < 0) first = 0;
    if (last >= count) last = count - 1;
    for (int64_t i = first; i <= last; i++)
        for (int j = 0; j < l->n; j++) {
            int64_t lo = i * l->extent + l->b[j].off, hi = lo + l->b[j].len;
            if (lo < off + len && off < hi) return 1;
        }
    return 0;
}

int msc_layout_blocks(MPI_Datatype t, int64_t count, int64_t *off, int64_t *len, int max)
{
    const layout *l = layout_of(t);
    if (!l || count <= 0) return -1;
    int n = 0;
    for (int64_t i = 0; i < count; i++)
        for (int j = 0; j < l->n; j++) {
            int64_t o = i * l->extent + l->b[j].off;
            if (n && off[n - 1] + len[n - 1] == o) {
                len[n - 1] += l->b[j].len;
                continue;
            }
            if (n == max) return -1;
            off[n] = o, len[n] = l->b[j].len, n++;
        }
    return n;
}

/* Whether two entries of a datatype's type map name the same bytes: MPI forbids such a type in a receive buffer
 * (MPI-3.1 §4.1; the data received would depend on the order MPI stores it in), while sends may use it. Asked once,
 * at MPI_Type_commit. A size above the true extent says so at once (an hvector whose stride is shorter than its
 * block); a type with holes is walked, up to OVERLAP_VISITS blocks (silent beyond: a type whose size equals its
 * true extent may hide an overlap behind a hole of the same size, which is not looked for either). */
#define OVERLAP_VISITS (1 << 16)
static int block_order(const void *x, const void *y)
{
    const struct block *a = x, *b = y;
    return a->off < b->off ? -1 : a->off > b->off;
}

int msc_type_overlaps(MPI_Datatype t)
{
    int size = 0;
    MPI_Aint tlb = 0, text = 0;
    if (PMPI_Type_size(t, &size) != MPI_SUCCESS || PMPI_Type_get_true_extent(t, &tlb, &text) != MPI_SUCCESS)
        return 0;
    if (size > text) return 1;
    if (size == text) return 0;
    builder k = { .max_visits = OVERLAP_VISITS };
    walk(t, 0, &k, 0);
    int overlap = 0;
    if (!k.failed && k.n > 1) {
        qsort(k.b, (size_t)k.n, sizeof k.b[0], block_order);
        for (int i = 1; i < k.n && !overlap; i++) overlap = k.b[i].off < k.b[i - 1].off + k.b[i - 1].len;
    }
    free(k.b);
    return overlap;
}

/* A freed datatype's handle may come back for another type. */
void msc_layout_forget(MPI_Datatype t)
{
    msc_slot *s = msc_tbl_find(&layouts, (uint64_t)msc_w_MPI_Datatype(t));
    if (s) {
        atomic_store_explicit(&s->v[0], 0, memory_order_relaxed);
        msc_tbl_del(s);
    }
    atomic_fetch_add_explicit(&layout_gen, 1, memory_order_release);
}

/* ---- sums ----
 * Every byte summed goes into the sum (what is summed: the file's head comment). Eight independent lanes of
 * 8 bytes each, held as two vectors of four: a lane's step is (h ^ v) * odd, h ^= h >> 29, a bijection of the
 * lane, and the lanes are folded into one word at the end by the same step, so a change of any single word
 * always changes the sum (a change of several words is missed only if they cancel through the multiplies).
 * One lane waited for its multiply at every step (~1.4 bytes per cycle, 5.6 ms for 4 MiB, twice per message);
 * four scalar lanes ran at ~13 GB/s; the vectors, compiled for AVX-512 (vpmullq), AVX2 (the 64-bit multiply
 * made of three 32-bit ones) and the baseline, are chosen once by what the CPU has, so the two sums of one
 * send always come from the same code (bench/shim-overhead's sweep: 8 B to 4 MiB). */
#define SUM_K 0x100000001B3ull
static inline uint64_t lane(uint64_t h, uint64_t v)
{
    h = (h ^ v) * SUM_K;
    return h ^ (h >> 29);
}

typedef uint64_t sum_vec __attribute__((vector_size(32)));

/* The 64-byte blocks of p[0, n & ~63) into eight lanes, folded into h. */
#define SUM_BLOCKS_BODY                                                                                        \
    {                                                                                                          \
        sum_vec a = { h, h ^ 0x9E3779B97F4A7C15ull, h ^ 0xC2B2AE3D27D4EB4Full, h ^ 0x165667B19E3779F9ull };   \
        sum_vec b = a ^ 0x27D4EB2F165667C5ull;                                                                  \
        for (size_t i = 0; i + 64 <= n; i += 64) {                                                             \
            sum_vec x, y;                                                                                      \
            memcpy(&x, p + i, 32);                                                                             \
            memcpy(&y, p + i + 32, 32);                                                                        \
            a = (a ^ x) * SUM_K;                                                                               \
            b = (b ^ y) * SUM_K;                                                                               \
            a ^= a >> 29;                                                                                      \
            b ^= b >> 29;                                                                                      \
        }                                                                                                      \
        for (int j = 0; j < 4; j++) h = lane(lane(h, a[j]), b[j]);                                             \
        return h;                                                                                              \
    }

static uint64_t sum_blocks_base(uint64_t h, const unsigned char *p, size_t n) SUM_BLOCKS_BODY
#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("avx2"))) static uint64_t sum_blocks_avx2(uint64_t h, const unsigned char *p,
                                                                size_t n) SUM_BLOCKS_BODY
__attribute__((target("avx2,avx512f,avx512dq,avx512vl"))) static uint64_t
sum_blocks_avx512(uint64_t h, const unsigned char *p, size_t n) SUM_BLOCKS_BODY
#endif

typedef uint64_t (*sum_blocks_fn)(uint64_t, const unsigned char *, size_t);
static _Atomic(sum_blocks_fn) sum_blocks;

static uint64_t sum_blocks_choose(uint64_t h, const unsigned char *p, size_t n)
{
    sum_blocks_fn f = sum_blocks_base;
#if defined(__x86_64__) && defined(__GNUC__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
        __builtin_cpu_supports("avx512vl"))
        f = sum_blocks_avx512;
    else if (__builtin_cpu_supports("avx2"))
        f = sum_blocks_avx2;
#endif
    atomic_store_explicit(&sum_blocks, f, memory_order_relaxed);
    return f(h, p, n);
}

static uint64_t sum_bytes(uint64_t h, const unsigned char *p, size_t n)
{
    h ^= n;
    size_t i = 0;
    if (n >= 64) {
        sum_blocks_fn f = atomic_load_explicit(&sum_blocks, memory_order_relaxed);
        h = (f ? f : sum_blocks_choose)(h, p, n);
        i = n & ~(size_t)63;
    }
    for (; i + 8 <= n; i += 8) {
        uint64_t v;
        memcpy(&v, p + i, 8);
        h = lane(h, v);
    }
    for (; i < n; i++) h = (h ^ p[i]) * SUM_K;
    return h;
}

/* ---- what a sum covers ---- */
#define SAMPLE_EDGE 4096
#define SAMPLE_WINDOWS 256
#define SAMPLE_WINDOW 64
#define EXACT_DEFAULT (256 * 1024)

/* MPISCOPE_CHECKSUM_EXACT_BYTES: the largest message summed whole. Read once when recording starts
 * (msc_checksum_init, before any wrapper records), so the two sums of one send always cover the same bytes. */
static int64_t exact_max = EXACT_DEFAULT;

void msc_checksum_init(void)
{
    const char *e = getenv("MPISCOPE_CHECKSUM_EXACT_BYTES");
    if (!e || !*e) return;
    char *end = NULL;
    long long n = strtoll(e, &end, 10);
    if (strcmp(e, "all") == 0) exact_max = INT64_MAX;
    else if (end && *end == 0 && n >= 0) exact_max = n;
    else
        fprintf(stderr, "mpiscope: MPISCOPE_CHECKSUM_EXACT_BYTES=%s is not a number of bytes or \"all\": using %d\n",
                e, EXACT_DEFAULT);
    /* A sample is never more than the message: below this the whole message is summed anyway. */
    if (exact_max < 2 * SAMPLE_EDGE + SAMPLE_WINDOWS * SAMPLE_WINDOW)
        exact_max = 2 * SAMPLE_EDGE + SAMPLE_WINDOWS * SAMPLE_WINDOW;
}

/* Walks message bytes [o, o + len) of layout l at buf block by block: copied to dst when it is not NULL (a window of
 * a non-contiguous message), summed into h otherwise; returns h. */
static uint64_t walk_range(uint64_t h, unsigned char *dst, const unsigned char *buf, const layout *l, int64_t o,
                           int64_t len)
{
    int64_t i = o / l->size, r = o % l->size;
    /* The block holding byte r of an element: the last one that starts at or before it. */
    int lo = 0, hi = l->n - 1;
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        if (l->b[mid].pre <= r) lo = mid;
        else hi = mid - 1;
    }
    for (int j = lo; len > 0;) {
        int64_t in = r - l->b[j].pre, take = l->b[j].len - in;
        if (take > len) take = len;
        const unsigned char *p = buf + i * l->extent + l->b[j].off + in;
        if (dst) {
            memcpy(dst, p, (size_t)take);
            dst += take;
        } else {
            h = sum_bytes(h, p, (size_t)take);
        }
        len -= take;
        r += take;
        if (++j == l->n) j = 0, i++, r = 0;
    }
    return h;
}

/* Message bytes [o, o + len) of count elements of layout l at buf, into h. */
static uint64_t sum_range(uint64_t h, const unsigned char *buf, const layout *l, int64_t o, int64_t len)
{
    if (l->n == 1 && l->b[0].len == l->extent) return sum_bytes(h, buf + l->b[0].off + o, (size_t)len);
    return walk_range(h, NULL, buf, l, o, len);
}

/* Copies message bytes [o, o + len) of layout l at buf to dst (a window of a non-contiguous message). */
static void copy_range(unsigned char *dst, const unsigned char *buf, const layout *l, int64_t o, int64_t len)
{
    walk_range(0, dst, buf, l, o, len);
}

/* A sample of a bounded size of a message of size bytes (the file's head comment). The windows are gathered
 * 64 at a time into one buffer and summed in one pass: a sum of its own per 64-byte window cost ~130
 * instructions (the vector lanes' set-up and fold), ~33,000 per sample. */
static __attribute__((noinline)) uint64_t sum_sampled(uint64_t h, const unsigned char *buf, const layout *l,
                                                      int64_t size)
{
    enum { GATHER = 64 };
    unsigned char win[GATHER * SAMPLE_WINDOW] __attribute__((aligned(64)));
    int contiguous = l->n == 1 && l->b[0].len == l->extent;
    const unsigned char *base = buf + l->b[0].off;
    int n = 0;
    h = sum_range(h, buf, l, 0, SAMPLE_EDGE);
    int64_t step = size / SAMPLE_WINDOWS, rest = size % SAMPLE_WINDOWS;
    for (int64_t k = 1; k < SAMPLE_WINDOWS; k++) {
        /* k * size / SAMPLE_WINDOWS without overflow, down to a multiple of the window. */
        int64_t o = (k * step + k * rest / SAMPLE_WINDOWS) & ~(int64_t)(SAMPLE_WINDOW - 1);
        if (o < SAMPLE_EDGE || o + SAMPLE_WINDOW > size - SAMPLE_EDGE) continue;
        if (contiguous) memcpy(win + n * SAMPLE_WINDOW, base + o, SAMPLE_WINDOW);
        else copy_range(win + n * SAMPLE_WINDOW, buf, l, o, SAMPLE_WINDOW);
        if (++n == GATHER) {
            h = sum_bytes(h, win, sizeof win);
            n = 0;
        }
    }
    if (n) h = sum_bytes(h, win, (size_t)n * SAMPLE_WINDOW);
    return sum_range(h, buf, l, size - SAMPLE_EDGE, SAMPLE_EDGE);
}

/* A contiguous message of at most 16 bytes, in a few loads instead of the general sum's set-up (~60 instructions
 * per sum for an 8-byte message, two sums per send; callgrind, bench/shim-overhead). Up to 8 bytes the "sum" is the
 * bytes themselves (two overlapping loads cover them all), so any change is found; 9 to 16 bytes are two
 * overlapping words through the lanes. Both sums of one send take this path: same buffer, same size. */
static inline uint64_t sum_small(const unsigned char *p, int64_t n)
{
    if (n >= 9) {
        uint64_t a, b;
        memcpy(&a, p, 8);
        memcpy(&b, p + n - 8, 8);
        return lane(lane(0x9E3779B97F4A7C15ull ^ (uint64_t)n, a), b);
    }
    if (n >= 4) {
        uint32_t a, b;
        memcpy(&a, p, 4);
        memcpy(&b, p + n - 4, 4);
        return (uint64_t)a | (uint64_t)b << 32;
    }
    if (n > 0) return (uint64_t)p[0] | (uint64_t)p[n / 2] << 8 | (uint64_t)p[n - 1] << 16;
    return 0;
}

static uint64_t sum_message_any(const unsigned char *buf, int64_t count, const layout *l);

static inline uint64_t sum_message(const unsigned char *buf, int64_t count, const layout *l)
{
    int64_t size = count * l->size;
    if (MSC_LIKELY(size <= 16 && l->n == 1 && l->b[0].len == l->extent)) return sum_small(buf + l->b[0].off, size);
    return sum_message_any(buf, count, l);
}

static __attribute__((noinline)) uint64_t sum_message_any(const unsigned char *buf, int64_t count, const layout *l)
{
    uint64_t h = 0x9E3779B97F4A7C15ull;
    int64_t size = count * l->size;
    if (MSC_UNLIKELY(size > exact_max)) return sum_sampled(h, buf, l, size);
    /* Contiguous (any predefined type, a contiguous derived one): the whole message in one pass. */
    if (l->n == 1 && l->b[0].len == l->extent) return sum_bytes(h, buf + l->b[0].off, (size_t)size);
    for (int64_t i = 0; i < count; i++)
        for (int j = 0; j < l->n; j++) h = sum_bytes(h, buf + i * l->extent + l->b[j].off, (size_t)l->b[j].len);
    return h;
}

/* Pending sends by request: [buffer, count, layout, sum]. */
static msc_table sends = MSC_TABLE(TABLE_FULL_SENDS);

/* A send that MPI completed at once hands out a shared request handle (msc_request_shared) that names no
 * operation: such a send is followed by the address of the caller's request variable instead, which its
 * Wait/Test passes back. Bit 63 keeps these keys apart from handles. */
static uint64_t key_of(MPI_Request req, const MPI_Request *where)
{
    if (!msc_request_shared(req)) return (uint64_t)msc_w_MPI_Request(req);
    return where ? (uint64_t)(uintptr_t)where | 1ull << 63 : 0;
}

/* id: the request as the analyzer knows it (the creating call's EXIT word), named in the finding. */
static void start_key(uint64_t key, int64_t id, const void *buf, int count, MPI_Datatype t)
{
    if (!msc_checks_on || !key || count <= 0 || !buf || buf == MPI_IN_PLACE || t == MPI_DATATYPE_NULL) return;
    const layout *l = layout_of(t);
    if (MSC_UNLIKELY(!l)) msc_check_off(MSC_CHECK_CHECKSUM_TYPE_UNFLATTENED); /* not summed: the report says so */
    if (!l || l->n == 0) return;
    msc_slot *s = msc_tbl_put(&sends, key);
    if (!s) return;
    atomic_store_explicit(&s->v[0], (int64_t)(intptr_t)buf, memory_order_relaxed);
    atomic_store_explicit(&s->v[1], count, memory_order_relaxed);
    atomic_store_explicit(&s->v[2], (int64_t)(intptr_t)l, memory_order_relaxed);
    atomic_store_explicit(&s->v[3], (int64_t)sum_message(buf, count, l), memory_order_relaxed);
    atomic_store_explicit(&s->v[4], id, memory_order_relaxed);
    if (MSC_UNLIKELY(!atomic_load_explicit(&msc_checksums_used, memory_order_relaxed)))
        atomic_store_explicit(&msc_checksums_used, 1, memory_order_release);
}

void msc_checksum_start(MPI_Request req, const void *buf, int count, MPI_Datatype t)
{
    if (req != MPI_REQUEST_NULL) start_key(key_of(req, NULL), msc_w_MPI_Request(req), buf, count, t);
}

void msc_checksum_post(msc_call *c, const msc_args *a, MPI_Request req)
{
    /* The EXIT word of the new request (x[1]: a nonblocking send has no other output handle) is also the
     * made-up id of a shared request. */
    int64_t id = c->nx >= 2 ? c->x[1] : msc_w_MPI_Request(req);
    if (req != MPI_REQUEST_NULL) start_key(key_of(req, a->request_out), id, a->sbuf, a->count, a->datatype);
}

static __attribute__((noinline)) void complete_found(msc_call *c, msc_slot *s);

/* Most completions are of requests that are not pending sends (receives): the miss is kept to the lookup, the
 * rest of the work out of line. */
void msc_checksum_complete(msc_call *c, MPI_Request req, const MPI_Request *where)
{
    uint64_t key = key_of(req, where);
    msc_slot *s = key ? msc_tbl_find(&sends, key) : NULL;
    if (s) complete_found(c, s);
}

static void complete_found(msc_call *c, msc_slot *s)
{
    const unsigned char *buf = (const unsigned char *)(intptr_t)atomic_load_explicit(&s->v[0], memory_order_relaxed);
    int64_t count = atomic_load_explicit(&s->v[1], memory_order_relaxed);
    const layout *l = (const layout *)(intptr_t)atomic_load_explicit(&s->v[2], memory_order_relaxed);
    uint64_t sum = (uint64_t)atomic_load_explicit(&s->v[3], memory_order_relaxed);
    int64_t id = atomic_load_explicit(&s->v[4], memory_order_relaxed);
    msc_tbl_del(s);
    if (sum_message(buf, count, l) != sum) {
        /* The span reported is from the first to the last byte of the message. */
        const unsigned char *first = buf + l->b[0].off;
        const unsigned char *last = buf + (count - 1) * l->extent + l->b[l->n - 1].off + l->b[l->n - 1].len;
        msc_finding(c, MSC_CHECK_SEND_BUFFER_MODIFIED, -1, id, (int64_t)(intptr_t)first,
                    (int64_t)(last - first));
    }
    msc_findings_clear(); /* nothing to flush early: this finding is about a call that already completed */
}

void msc_checksum_forget(MPI_Request req, const MPI_Request *where)
{
    if (!atomic_load_explicit(&msc_checksums_used, memory_order_relaxed)) return;
    uint64_t key = key_of(req, where);
    msc_slot *s = key ? msc_tbl_find(&sends, key) : NULL;
    if (!s) return;
    msc_tbl_del(s);
}
