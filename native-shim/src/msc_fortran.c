/* Runtime of the generated Fortran wrappers (msc_fortran.h): scratch space for arrays larger than the
 * wrappers' locals, and cells for output handles that must outlive the call. */
#include <stdlib.h>

#include "msc_fortran.h"

/* Thread-local scratch per slot; it only grows, and malloc happens only for arrays of more than
 * MSC_LOCAL_REQUESTS entries (off the common path, like msc_words.c). Separate from msc_words.c's scratch,
 * which the recording body uses for its own copy of the same call's requests. */
#define SLOTS 3
static __thread void *scratch[SLOTS];
static __thread size_t scratch_bytes[SLOTS];

static void *room(int slot, size_t bytes)
{
    if (bytes > scratch_bytes[slot]) {
        void *p = realloc(scratch[slot], bytes);
        if (!p) return NULL;
        scratch[slot] = p;
        scratch_bytes[slot] = bytes;
    }
    return scratch[slot];
}

void *msc_f_handles(size_t size, const MPI_Fint *f, int n, void *local, int slot, void (*put)(void *, MPI_Fint))
{
    if (!f || n <= 0) return NULL;
    unsigned char *out = local;
    if (n > MSC_LOCAL_REQUESTS) {
        /* Out of memory: no C view; the recording then sees no array (the call itself is unaffected). */
        out = room(slot, (size_t)n * size);
        if (!out) return NULL;
    }
    for (int i = 0; i < n; i++) put(out + (size_t)i * size, f[i]);
    return out;
}

int *msc_f_indices_room(int n, int *local)
{
    if (n <= MSC_LOCAL_REQUESTS) return local;
    return room(SLOTS - 1, (size_t)n * sizeof(int));
}

void msc_f_indices_from(int *c, const MPI_Fint *f, int n, int base)
{
    if (!c || !f) return;
    for (int i = 0; i < n; i++) c[i] = msc_f_index(f[i], base);
}

#if !MSC_F_INT_HANDLES
/* MPI_Comm_idup from Fortran with pointer handles: the shim reads the new communicator when the idup's request
 * completes (msc_requests.c), long after the wrapper's stack is gone. 256 idups may be pending at once before a
 * cell is reused; a reused cell only loses the COMM record of the oldest idup. */
#define KEPT 256
static MPI_Comm kept_comms[KEPT];
static _Atomic unsigned kept_next;

MPI_Comm *msc_f_kept_MPI_Comm(void)
{
    unsigned i = atomic_fetch_add_explicit(&kept_next, 1, memory_order_relaxed) % KEPT;
    kept_comms[i] = MPI_COMM_NULL;
    return &kept_comms[i];
}
#endif
