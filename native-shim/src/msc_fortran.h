/* What the generated Fortran wrappers (gen/fortran.mjs → msc_fortran_wrappers.c) need besides msc_shim.h:
 * the C view of Fortran arguments (handles, the Fortran sentinels, statuses, 1-based indices).
 *
 * A Fortran wrapper records exactly as the C wrapper does (the same generated body, the same record path) and
 * forwards the call, with the user's own arguments, to the library's Fortran profiling entry (pmpi_recv_,
 * pmpi_recv_f08_, pmpir_recv_f08ts_…): what a Fortran call means stays the library's business (callbacks,
 * LOGICALs, MPI_Init without argc/argv, its own handling of the sentinels). Only the recording reads the
 * arguments, through the helpers below. Both libraries are built for a default INTEGER of 4 bytes. */
#ifndef MSC_FORTRAN_H
#define MSC_FORTRAN_H

#include "msc_shim.h"

_Static_assert(sizeof(MPI_Fint) == sizeof(int), "the shim assumes a default Fortran INTEGER of C int size");

/* ---- handles ----
 * MPICH's handles are ints and MPI_X_f2c is the identity: the C view of a Fortran handle variable is the
 * variable itself (so the shim's keys by the caller's request variable work as in C). Open MPI's C handles are
 * pointers: a Fortran handle is an index that MPI_X_f2c looks up. */
#if defined(MPICH)
#define MSC_F_INT_HANDLES 1
#define MSC_F2C_FN(T, FN)                                                                                      \
    static inline T msc_f2c_##T(MPI_Fint f) { return (T)f; }
#else
#define MSC_F_INT_HANDLES 0
#define MSC_F2C_FN(T, FN)                                                                                      \
    static inline T msc_f2c_##T(MPI_Fint f) { return FN(f); }
#endif
MSC_F2C_FN(MPI_Comm, PMPI_Comm_f2c)
MSC_F2C_FN(MPI_Datatype, PMPI_Type_f2c)
MSC_F2C_FN(MPI_Request, PMPI_Request_f2c)
MSC_F2C_FN(MPI_Group, PMPI_Group_f2c)
MSC_F2C_FN(MPI_Op, PMPI_Op_f2c)
MSC_F2C_FN(MPI_Message, PMPI_Message_f2c)
MSC_F2C_FN(MPI_Info, PMPI_Info_f2c)
MSC_F2C_FN(MPI_Errhandler, PMPI_Errhandler_f2c)
MSC_F2C_FN(MPI_Win, PMPI_Win_f2c)
/* MPI_File is a pointer in both libraries (MPICH's file handles are not ints): always converted. */
static inline MPI_File msc_f2c_MPI_File(MPI_Fint f) { return PMPI_File_f2c(f); }
#undef MSC_F2C_FN

/* A handle passed by reference (MPI_Wait's request, MPI_Type_commit's datatype) and a handle the call returns
 * (MPI_Isend's request): with int handles the C pointer is the Fortran variable; otherwise a local holds the
 * converted value, and an output is converted after the call returned. */
#if MSC_F_INT_HANDLES
#define MSC_F_HANDLE_INOUT(T, NULLH, name, f) T *name = (T *)(f)
#define MSC_F_HANDLE_OUT(T, NULLH, name, f) T *name = (T *)(f)
#define MSC_F_HANDLE_OUT_DONE(T, NULLH, name, f, ok) ((void)0)
#define MSC_F_HANDLE_ARRAY(T, name, f, n, slot) T *name = (T *)(f)
#else
#define MSC_F_HANDLE_INOUT(T, NULLH, name, f)                                                                  \
    T msc_v_##name = (f) ? msc_f2c_##T(*(f)) : NULLH;                                                          \
    T *name = (f) ? &msc_v_##name : NULL
#define MSC_F_HANDLE_OUT(T, NULLH, name, f)                                                                    \
    T msc_v_##name = NULLH;                                                                                    \
    T *name = (f) ? &msc_v_##name : NULL
#define MSC_F_HANDLE_OUT_DONE(T, NULLH, name, f, ok)                                                           \
    if (name) *name = (ok) ? msc_f2c_##T(*(f)) : NULLH
#define MSC_F_HANDLE_ARRAY(T, name, f, n, slot)                                                                \
    T msc_a_##name[MSC_LOCAL_REQUESTS];                                                                        \
    T *name = (T *)msc_f_handles(sizeof(T), (f), (n), msc_a_##name, (slot), msc_f2c_put_##T)
static inline void msc_f2c_put_MPI_Request(void *out, MPI_Fint f) { *(MPI_Request *)out = msc_f2c_MPI_Request(f); }
static inline void msc_f2c_put_MPI_Datatype(void *out, MPI_Fint f) { *(MPI_Datatype *)out = msc_f2c_MPI_Datatype(f); }
#endif
/* An output handle the shim reads again when a request completes (MPI_Comm_idup's new communicator): it must
 * outlive the call, so with pointer handles it lives in a cell of a small static ring, not on the stack. */
#if MSC_F_INT_HANDLES
#define MSC_F_HANDLE_OUT_KEPT(T, NULLH, name, f) T *name = (T *)(f)
#else
#define MSC_F_HANDLE_OUT_KEPT(T, NULLH, name, f) T *name = (f) ? msc_f_kept_##T() : NULL
MPI_Comm *msc_f_kept_MPI_Comm(void);
#endif

/* Converts n Fortran handles into C ones: into local when n <= MSC_LOCAL_REQUESTS, else into a thread-local
 * scratch of this slot (a call has at most two handle arrays: MPI_Alltoallw's send and receive types). */
void *msc_f_handles(size_t size, const MPI_Fint *f, int n, void *local, int slot, void (*put)(void *, MPI_Fint));

/* ---- the Fortran sentinels ----
 * Each library has its own: addresses of common-block variables or module variables, which the C view maps to
 * MPI_IN_PLACE / MPI_BOTTOM / MPI_STATUS(ES)_IGNORE. Open MPI: the common blocks mpi_fortran_*_ (mpif.h, use
 * mpi and use mpi_f08 alike; defined by libmpi and by the executable when it includes mpif.h, and resolved to
 * one of them by the dynamic linker) and MPI_F_STATUS(ES)_IGNORE. MPICH: mpif.h and use mpi share common
 * blocks whose addresses MPICH's Fortran MPI_Init records in MPIR_F_MPI_IN_PLACE / MPIR_F_MPI_BOTTOM and
 * MPI_F_STATUS(ES)_IGNORE; mpi_f08 has its own variables (MPIR_F08_MPI_IN_PLACE…, MPI_F08_STATUS(ES)_IGNORE).
 * Weak references: a program without the library's Fortran layer loaded sees NULL. */
#if defined(OPEN_MPI)
extern char mpi_fortran_in_place_[] __attribute__((weak)), mpi_fortran_in_place[] __attribute__((weak)),
    mpi_fortran_in_place__[] __attribute__((weak)), MPI_FORTRAN_IN_PLACE[] __attribute__((weak));
extern char mpi_fortran_bottom_[] __attribute__((weak)), mpi_fortran_bottom[] __attribute__((weak)),
    mpi_fortran_bottom__[] __attribute__((weak)), MPI_FORTRAN_BOTTOM[] __attribute__((weak));
static inline const void *msc_f77_buf(const void *p)
{
    if (!p) return p;
    if (p == mpi_fortran_in_place_ || p == mpi_fortran_in_place || p == mpi_fortran_in_place__ ||
        p == MPI_FORTRAN_IN_PLACE)
        return MPI_IN_PLACE;
    if (p == mpi_fortran_bottom_ || p == mpi_fortran_bottom || p == mpi_fortran_bottom__ || p == MPI_FORTRAN_BOTTOM)
        return MPI_BOTTOM;
    return p;
}
/* Open MPI's mpi_f08 module binds its sentinels to the same common blocks. */
static inline const void *msc_f08_buf(const void *p) { return msc_f77_buf(p); }
static inline MPI_Status *msc_f77_status(MPI_Fint *f)
{
    return (!f || f == MPI_F_STATUS_IGNORE) ? MPI_STATUS_IGNORE : (MPI_Status *)(void *)f;
}
static inline MPI_Status *msc_f77_statuses(MPI_Fint *f)
{
    return (!f || f == MPI_F_STATUSES_IGNORE) ? MPI_STATUSES_IGNORE : (MPI_Status *)(void *)f;
}
static inline MPI_Status *msc_f08_status(MPI_Fint *f) { return msc_f77_status(f); }
static inline MPI_Status *msc_f08_statuses(MPI_Fint *f) { return msc_f77_statuses(f); }
#elif defined(MPICH)
extern void *MPIR_F_MPI_IN_PLACE __attribute__((weak));
extern void *MPIR_F_MPI_BOTTOM __attribute__((weak));
static inline const void *msc_f77_buf(const void *p)
{
    if (!p || !&MPIR_F_MPI_IN_PLACE) return p;
    if (p == MPIR_F_MPI_IN_PLACE) return MPI_IN_PLACE;
    if (p == MPIR_F_MPI_BOTTOM) return MPI_BOTTOM;
    return p;
}
static inline const void *msc_f08_buf(const void *p)
{
    if (p == (const void *)&MPIR_F08_MPI_IN_PLACE) return MPI_IN_PLACE;
    if (p == (const void *)&MPIR_F08_MPI_BOTTOM) return MPI_BOTTOM;
    return p;
}
static inline MPI_Status *msc_f77_status(MPI_Fint *f)
{
    return (!f || f == MPI_F_STATUS_IGNORE) ? MPI_STATUS_IGNORE : (MPI_Status *)(void *)f;
}
static inline MPI_Status *msc_f77_statuses(MPI_Fint *f)
{
    return (!f || f == MPI_F_STATUSES_IGNORE) ? MPI_STATUSES_IGNORE : (MPI_Status *)(void *)f;
}
static inline MPI_Status *msc_f08_status(MPI_Fint *f)
{
    return (!f || (void *)f == (void *)MPI_F08_STATUS_IGNORE) ? MPI_STATUS_IGNORE : (MPI_Status *)(void *)f;
}
static inline MPI_Status *msc_f08_statuses(MPI_Fint *f)
{
    return (!f || (void *)f == (void *)MPI_F08_STATUSES_IGNORE) ? MPI_STATUSES_IGNORE : (MPI_Status *)(void *)f;
}
#else
#error "the Fortran wrappers know Open MPI and MPICH only"
#endif
/* MPICH's mpi_f08 procedures with choice buffers (the *_f08ts names) take the buffer as an assumed-rank
 * array: gfortran passes its array descriptor, whose first member is the base address. */
static inline const void *msc_f08ts_buf(const void *desc)
{
    return desc ? msc_f08_buf(*(const void *const *)desc) : desc;
}

/* Statuses: with a default INTEGER of C int size, both libraries' Fortran status (an INTEGER array in mpif.h
 * and use mpi, TYPE(MPI_Status) in mpi_f08) holds the C MPI_Status's integers in order, which is how their own
 * Fortran bindings pass it to C (Open MPI casts it, MPICH copies the struct): the C view is the same memory. */

/* ---- Fortran indices are 1-based ----
 * Except from MPICH 4.0's mpi_f08, whose Waitany/Testany/Waitsome/Testsome return the C indices unchanged
 * (pmodels/mpich#6270, fixed in 4.1 by pull request #5763): the shim records what the library did, so the
 * base is the library's. The program itself then reads a 0-based index, with or without mpiscope. */
#if defined(MPICH) && defined(MPICH_NUMVERSION) && MPICH_NUMVERSION < 40100000
#define MSC_F08_INDEX_BASE 0
#else
#define MSC_F08_INDEX_BASE 1
#endif
#define MSC_F77_INDEX_BASE 1
/* MPI_Waitany/Testany: the C view of the index the library wrote. */
static inline int msc_f_index(MPI_Fint f, int base) { return f == MPI_UNDEFINED ? MPI_UNDEFINED : f - base; }
/* MPI_Waitsome/Testsome: room for n C indices (local when n <= MSC_LOCAL_REQUESTS). */
int *msc_f_indices_room(int n, int *local);
/* Fills the C indices from the n Fortran ones the library wrote. */
void msc_f_indices_from(int *c, const MPI_Fint *f, int n, int base);

#endif
