/* User callbacks that MPI runs inside another MPI call of the same thread: an attribute's copy function (run by
 * MPI_Comm_dup, MPI_Type_dup) and delete function (run by MPI_Comm_free, MPI_Comm_delete_attr, MPI_Type_free,
 * MPI_Win_free, MPI_Finalize…).
 *
 * A wrapper's re-entry guard (msc_tls_depth) sends an MPI call made while the thread is inside MPI straight to PMPI:
 * those are the library's own calls. But the MPI calls of a user's callback are the program's: mpi4py keeps the
 * duplicate of a communicator that its object reductions use as an attribute of that communicator, and frees it in
 * the attribute's delete function; unseen, every `comm.allreduce(x)` of a Python program was a communicator "never
 * freed". So MPI_{Comm,Type,Win}_create_keyval give MPI trampolines that run the user's function with the guard
 * lifted: its calls are recorded like any other, their ENTERs flagged MSC_ENTER_NESTED (the analyzer then knows
 * they nest in the outer call, not run beside it as another thread's would). */
#include "msc_shim.h"

#include <stdlib.h>

typedef struct box {
    void (*copy)(void);
    void (*del)(void);
    void *extra;
} box;

typedef struct saved {
    int depth;
    msc_call *call;
    uint8_t kind;
} saved;

/* Lifts the guard when the callback runs inside a call the shim records: the outer call's held ENTER and kept-back
 * COMPLETEs go out first, so that the callback's calls come after them in the stream. */
static void callback_begin(saved *s)
{
    s->depth = msc_tls_depth;
    s->call = msc_tls_call;
    s->kind = msc_tls_thread_kind;
    if (!s->depth || s->call == NULL || atomic_load_explicit(&msc_state, memory_order_relaxed) != MSC_STATE_ON) {
        s->depth = -1; /* nothing changed */
        return;
    }
    (void)msc_enter_flags(); /* the thread's kind known before the nested bit joins it */
    s->kind = msc_tls_thread_kind;
    if (msc_held_call != NULL) msc_emit_held();
    if (msc_pending_call != NULL) msc_emit_pending();
    msc_tls_depth = 0;
    msc_tls_call = NULL;
    msc_tls_thread_kind = (uint8_t)(s->kind | MSC_ENTER_NESTED);
}

static void callback_end(const saved *s)
{
    if (s->depth < 0) return;
    msc_tls_depth = s->depth;
    msc_tls_call = s->call;
    msc_tls_thread_kind = s->kind;
}

#define TRAMPOLINES(KIND, HANDLE)                                                                                \
    static int copy_##KIND(HANDLE old, int keyval, void *extra, void *in, void *out, int *flag)                  \
    {                                                                                                            \
        const box *b = extra;                                                                                    \
        saved s;                                                                                                 \
        callback_begin(&s);                                                                                      \
        int rc = ((MPI_##KIND##_copy_attr_function *)(void *)b->copy)(old, keyval, b->extra, in, out, flag);    \
        callback_end(&s);                                                                                        \
        return rc;                                                                                               \
    }                                                                                                            \
    static int delete_##KIND(HANDLE h, int keyval, void *attr, void *extra)                                     \
    {                                                                                                            \
        const box *b = extra;                                                                                    \
        saved s;                                                                                                 \
        callback_begin(&s);                                                                                      \
        int rc = ((MPI_##KIND##_delete_attr_function *)(void *)b->del)(h, keyval, attr, b->extra);              \
        callback_end(&s);                                                                                        \
        return rc;                                                                                               \
    }

TRAMPOLINES(Comm, MPI_Comm)
TRAMPOLINES(Type, MPI_Datatype)
TRAMPOLINES(Win, MPI_Win)

typedef void (*fn)(void);

msc_keyval_fns msc_keyval_wrap(int kind, fn copy, fn del, void *extra)
{
    msc_keyval_fns out = { copy, del, extra };
    /* The predefined functions (MPICH's are null pointers) stay as they are: MPI may recognise them, and they call
     * no MPI function. */
    fn null_copy, dup, null_delete, my_copy, my_delete;
    if (kind == MSC_KEYVAL_COMM) {
        null_copy = (fn)MPI_COMM_NULL_COPY_FN;
        dup = (fn)MPI_COMM_DUP_FN;
        null_delete = (fn)MPI_COMM_NULL_DELETE_FN;
        my_copy = (fn)copy_Comm;
        my_delete = (fn)delete_Comm;
    } else if (kind == MSC_KEYVAL_TYPE) {
        null_copy = (fn)MPI_TYPE_NULL_COPY_FN;
        dup = (fn)MPI_TYPE_DUP_FN;
        null_delete = (fn)MPI_TYPE_NULL_DELETE_FN;
        my_copy = (fn)copy_Type;
        my_delete = (fn)delete_Type;
    } else {
        null_copy = (fn)MPI_WIN_NULL_COPY_FN;
        dup = (fn)MPI_WIN_DUP_FN;
        null_delete = (fn)MPI_WIN_NULL_DELETE_FN;
        my_copy = (fn)copy_Win;
        my_delete = (fn)delete_Win;
    }
    int wrap_copy = copy != NULL && copy != null_copy && copy != dup;
    int wrap_delete = del != NULL && del != null_delete;
    if (!wrap_copy && !wrap_delete) return out;
    /* Kept for the life of the process: MPI may run the functions after MPI_*_free_keyval, as long as an object
     * still holds an attribute of the keyval. A few dozen bytes per keyval a program creates. */
    box *b = malloc(sizeof *b);
    if (b == NULL) return out;
    b->copy = copy;
    b->del = del;
    b->extra = extra;
    out.extra = b;
    if (wrap_copy) out.copy = my_copy;
    if (wrap_delete) out.del = my_delete;
    return out;
}
