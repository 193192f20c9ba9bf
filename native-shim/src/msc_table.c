/* Small lock-free hash tables keyed by a handle's word, with bounded probing: no lock, no allocation. A full
 * neighbourhood simply stops tracking, which can only make a check silent, never wrong. Lookups scan the
 * whole neighbourhood (they do not stop at an empty slot), so that a delete is just clearing the key. */
#include "msc_shim.h"

static unsigned tbl_hash(uint64_t k) { return (unsigned)((k * 0x9E3779B97F4A7C15ull) >> (64 - MSC_TBL_BITS)); }

msc_slot *msc_tbl_find(msc_slot *t, uint64_t key)
{
    unsigned h = tbl_hash(key);
    for (unsigned i = 0; i < MSC_TBL_PROBE; i++) {
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
        uint64_t empty = 0;
        if (atomic_compare_exchange_strong_explicit(&s->key, &empty, key, memory_order_acq_rel, memory_order_relaxed))
            return s;
    }
    return NULL;
}

void msc_tbl_del(msc_slot *s) { atomic_store_explicit(&s->key, 0, memory_order_release); }
