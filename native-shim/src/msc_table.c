/* Small lock-free hash tables keyed by a handle's word, with bounded probing: no lock, no allocation on the hot
 * path. A delete just clears the key, so lookups cannot stop at an empty slot: they scan as far as the home slot's
 * reach, the farthest offset a key of that home was ever placed at (only grows; at the tables' low load it stays 0
 * or 1, so a miss, the common lookup — a receive's request at its Wait — costs a slot or two instead of sixteen).
 *
 * A table grows instead of giving up: when a key's neighbourhood is full, it goes to the next level, twice as large
 * as the one before, mapped the first time it is needed (off the hot path: a program that keeps more handles alive
 * at once than the first level holds). Keys never move between levels, so nothing is copied and a writer of another
 * thread never writes into a level that was abandoned; a lookup that misses the first level looks in the levels
 * that exist (one load when there are none). Past the last level (MPISCOPE_TABLE_LEVELS, default MSC_TBL_LEVELS:
 * 4,096 × 63 keys) the table stops tracking, which can only make a check silent, never wrong — and not silently:
 * the table's note (msc_check_off) names the check in the report's "Not checked". */
#include <stdlib.h>
#include <sys/mman.h>

#include "msc_shim.h"

static int tbl_levels = MSC_TBL_LEVELS;

void msc_tbl_init(void)
{
    const char *l = getenv("MPISCOPE_TABLE_LEVELS");
    if (l && *l) {
        int n = atoi(l);
        tbl_levels = n < 1 ? 1 : n > MSC_TBL_LEVELS ? MSC_TBL_LEVELS : n;
    }
}

/* Inlined with the level's bits known: the first level's lookups cost what they did before levels. */
#define TBL_INLINE inline __attribute__((always_inline))
static TBL_INLINE unsigned tbl_hash(uint64_t k, unsigned bits) { return (unsigned)((k * 0x9E3779B97F4A7C15ull) >> (64 - bits)); }

static TBL_INLINE msc_slot *level_find(msc_slot *s, unsigned bits, uint64_t key)
{
    unsigned h = tbl_hash(key, bits), mask = (1u << bits) - 1;
    unsigned reach = atomic_load_explicit(&s[h].reach, memory_order_acquire);
    for (unsigned i = 0; i <= reach && i < MSC_TBL_PROBE; i++) {
        msc_slot *x = &s[(h + i) & mask];
        if (atomic_load_explicit(&x->key, memory_order_acquire) == key) return x;
    }
    return NULL;
}

static TBL_INLINE msc_slot *level_claim(msc_slot *s, unsigned bits, uint64_t key)
{
    unsigned h = tbl_hash(key, bits), mask = (1u << bits) - 1;
    for (unsigned i = 0; i < MSC_TBL_PROBE; i++) {
        msc_slot *x = &s[(h + i) & mask];
        if (atomic_load_explicit(&x->key, memory_order_relaxed) != 0) continue;
        /* The reach first: whoever sees the key placed below also sees a reach that covers it. */
        unsigned r = atomic_load_explicit(&s[h].reach, memory_order_relaxed);
        while (r < i && !atomic_compare_exchange_weak_explicit(&s[h].reach, &r, i, memory_order_release,
                                                               memory_order_relaxed)) {
        }
        uint64_t empty = 0;
        if (atomic_compare_exchange_strong_explicit(&x->key, &empty, key, memory_order_acq_rel, memory_order_relaxed))
            return x;
    }
    return NULL;
}

static __attribute__((noinline)) msc_slot *find_more(msc_table *t, uint64_t key)
{
    for (int k = 1; k < MSC_TBL_LEVELS; k++) {
        msc_slot *s = atomic_load_explicit(&t->more[k - 1], memory_order_acquire);
        if (!s) return NULL;
        msc_slot *x = level_find(s, MSC_TBL_BITS + (unsigned)k, key);
        if (x) return x;
    }
    return NULL;
}

msc_slot *msc_tbl_find(msc_table *t, uint64_t key)
{
    msc_slot *x = level_find(t->s, MSC_TBL_BITS, key);
    if (x || MSC_LIKELY(!atomic_load_explicit(&t->more[0], memory_order_relaxed))) return x;
    return find_more(t, key);
}

/* Level k (1 ≤ k < tbl_levels), mapped by the first thread that needs it. */
static msc_slot *level_map(msc_table *t, int k)
{
    msc_slot *s = atomic_load_explicit(&t->more[k - 1], memory_order_acquire);
    if (s) return s;
    size_t bytes = ((size_t)MSC_TBL_SIZE << k) * sizeof(msc_slot);
    void *m = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) return NULL;
    msc_slot *none = NULL;
    if (atomic_compare_exchange_strong_explicit(&t->more[k - 1], &none, (msc_slot *)m, memory_order_acq_rel,
                                                memory_order_acquire))
        return m;
    munmap(m, bytes); /* another thread mapped it first */
    return none;
}

msc_slot *msc_tbl_put(msc_table *t, uint64_t key)
{
    /* The common case in one pass over the first level's home reach, when it is the only level (the key can be
     * nowhere else): the key's slot if it is there, else the first free slot within the reach (which then needs
     * no reach update), claimed with one CAS. A Isend's put was a lookup, then a second hash and scan to claim:
     * 79 instructions (callgrind, bench/shim-overhead). Anything else, or a lost CAS, takes the general path. */
    if (MSC_LIKELY(!atomic_load_explicit(&t->more[0], memory_order_acquire))) {
        unsigned h = tbl_hash(key, MSC_TBL_BITS), mask = MSC_TBL_SIZE - 1;
        unsigned reach = atomic_load_explicit(&t->s[h].reach, memory_order_acquire);
        msc_slot *free_slot = NULL;
        for (unsigned i = 0; i <= reach && i < MSC_TBL_PROBE; i++) {
            msc_slot *x = &t->s[(h + i) & mask];
            uint64_t k = atomic_load_explicit(&x->key, memory_order_acquire);
            if (k == key) return x;
            if (k == 0 && !free_slot) free_slot = x;
        }
        uint64_t empty = 0;
        if (free_slot && atomic_compare_exchange_strong_explicit(&free_slot->key, &empty, key, memory_order_acq_rel,
                                                                 memory_order_relaxed))
            return free_slot;
    }
    msc_slot *x = msc_tbl_find(t, key);
    if (x) return x;
    x = level_claim(t->s, MSC_TBL_BITS, key);
    for (int k = 1; !x && k < tbl_levels; k++) {
        msc_slot *s = level_map(t, k);
        if (!s) break;
        x = level_claim(s, MSC_TBL_BITS + (unsigned)k, key);
    }
    if (!x) msc_check_off(t->off);
    return x;
}

void msc_tbl_del(msc_slot *s) { atomic_store_explicit(&s->key, 0, memory_order_release); }

/* ---- checks that went off ----
 * A check that stops (a table full, a bound reached) is told to the analyzer once per process, by a FINDING of
 * the note the spec lists for it (its `off` text names the check): the report's "Not checked" names it with the
 * ranks. Where it stops there is often no call at hand (a handle tracked after PMPI returned), so it is told at
 * the next call's entry, through msc_attention (msc_pause_point → msc_checks_off_tell). */
static _Atomic uint8_t off_state[MSC_CHECK_COUNT]; /* 0: on, 1: off and not told, 2: told */
_Atomic int msc_checks_off_untold;

void msc_check_off(int check)
{
    if (check < 0 || check >= MSC_CHECK_COUNT) return;
    uint8_t on = 0;
    if (!atomic_compare_exchange_strong(&off_state[check], &on, 1)) return;
    atomic_store(&msc_checks_off_untold, 1);
    msc_attention_raise();
}

void msc_checks_off_tell(msc_call *c)
{
    if (!atomic_exchange(&msc_checks_off_untold, 0)) return;
    msc_attention_raise();
    for (int i = 0; i < MSC_CHECK_COUNT; i++) {
        uint8_t off = 1;
        if (atomic_compare_exchange_strong(&off_state[i], &off, 2)) msc_finding(c, i, -1, 0, 0, 0);
    }
}
