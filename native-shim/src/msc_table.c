/* Small lock-free hash tables keyed by a handle's word, with bounded probing: no lock, no allocation. A full
 * neighbourhood simply stops tracking, which can only make a check silent, never wrong. A delete just clears
 * the key, so lookups cannot stop at an empty slot: they scan as far as the home slot's reach, the farthest
 * offset a key of that home was ever placed at (only grows; at the tables' low load it stays 0 or 1, so a
 * miss, the common lookup — a receive's request at its Wait — costs a slot or two instead of sixteen). */
#include "msc_shim.h"

static unsigned tbl_hash(uint64_t k) { return (unsigned)((k * 0x9E3779B97F4A7C15ull) >> (64 - MSC_TBL_BITS)); }

msc_slot *msc_tbl_find(msc_slot *t, uint64_t key)
{
    unsigned h = tbl_hash(key);
    unsigned reach = atomic_load_explicit(&t[h].reach, memory_order_acquire);
    for (unsigned i = 0; i <= reach && i < MSC_TBL_PROBE; i++) {
        msc_slot *s = &t[(h + i) & (MSC_TBL_SIZE - 1)];
        if (atomic_load_explicit(&s->key, memory_order_acquire) == key) return s;
    }
    return NULL;
}

msc_slot *msc_tbl_put(msc_slot *t, uint64_t key)
{
    msc_slot *s = msc_tbl_find(t, key);
    if (s) return s;
    unsigned h = tbl_hash(key);
    for (unsigned i = 0; i < MSC_TBL_PROBE; i++) {
        s = &t[(h + i) & (MSC_TBL_SIZE - 1)];
        if (atomic_load_explicit(&s->key, memory_order_relaxed) != 0) continue;
        /* The reach first: whoever sees the key placed below also sees a reach that covers it. */
        unsigned r = atomic_load_explicit(&t[h].reach, memory_order_relaxed);
        while (r < i && !atomic_compare_exchange_weak_explicit(&t[h].reach, &r, i, memory_order_release,
                                                               memory_order_relaxed)) {
        }
        uint64_t empty = 0;
        if (atomic_compare_exchange_strong_explicit(&s->key, &empty, key, memory_order_acq_rel, memory_order_relaxed))
            return s;
    }
    return NULL;
}

void msc_tbl_del(msc_slot *s) { atomic_store_explicit(&s->key, 0, memory_order_release); }
