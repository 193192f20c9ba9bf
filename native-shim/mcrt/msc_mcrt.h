/* The memcheck runtime's interface (libmpiscope-mcrt.so), shared with the shim's memcheck build.
 *
 * A program built with `mpiscope cc/cxx/fc` is compiled with gcc's -fsanitize=thread, which makes every load
 * and store call a hook (__tsan_read4, __tsan_write8, …). The runtime serves those hooks with one question only:
 * does this access touch memory that a pending MPI operation owns? The owned intervals are published by the
 * shim (native-shim/src/msc_memcheck.c), which knows when operations start and complete; a hit is handed back
 * to the shim, which decides precisely (datatype layouts, windows) and reports. Nothing of ThreadSanitizer's
 * runtime (shadow memory, interceptors, happens-before) is used. */
#ifndef MSC_MCRT_H
#define MSC_MCRT_H

#include <stddef.h>
#include <stdint.h>

#define MSC_MCRT_VERSION 2

/* Which accesses to an interval are hits. */
#define MSC_MC_READ 1
#define MSC_MC_WRITE 2

/* The hit's `write` word: bit 0 a store (else a load), MSC_MC_HIT_ATOMIC an atomic access (__tsan_atomic*). */
#define MSC_MC_HIT_ATOMIC 2

/* A hit: the access [addr, addr + size), a store when write & 1, made by the instruction before return address pc;
 * token is what the shim published with the interval. Called on the accessing thread, outside the runtime's
 * locks; it may add and remove intervals. */
typedef void (*msc_mcrt_hit_fn)(uintptr_t addr, size_t size, int write, void *pc, uint64_t token);

int msc_mcrt_version(void);
void msc_mcrt_set_hit(msc_mcrt_hit_fn fn);
/* Publishes [lo, hi) for the accesses in modes; returns a handle (>= 0) for msc_mcrt_remove, or -1 when the
 * table is full (the operation is then not followed: silence, never a false alarm). */
int msc_mcrt_add(uintptr_t lo, uintptr_t hi, int modes, uint64_t token);
void msc_mcrt_remove(int handle);
/* Between msc_mcrt_batch(1) and msc_mcrt_batch(0), adds and removes are published together, once, at the end
 * (an operation with a strided type publishes one interval per block). */
void msc_mcrt_batch(int on);
/* Number of intervals published now (tests and statistics). */
int msc_mcrt_live(void);

#endif
