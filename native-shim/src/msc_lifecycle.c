/* How a rank's stream ends when it does not end in MPI_Finalize: exit without Finalize (atexit), a crash
 * signal (flush, then chain to the handler that was there before), and fork (the child records nothing).
 * MPI_Finalize and MPI_Abort end the stream in their class handlers. */
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "msc_shim.h"

/* SIGTERM too: mpirun terminates the other ranks with it when one fails, and the analyzer should hear how
 * they ended rather than see connections drop. */
static const int crash_signals[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTERM };
#define N_CRASH (int)(sizeof crash_signals / sizeof crash_signals[0])
static struct sigaction previous[N_CRASH];
static _Atomic int in_crash;

/* Bounded: a crashing rank must die even when the analyzer does not read. */
static int flush_timeout_ms(void)
{
    const char *t = getenv("MPISCOPE_FLUSH_TIMEOUT_MS");
    return t ? atoi(t) : 2000;
}
static int crash_timeout_ms = 2000;

static void on_exit_without_finalize(void)
{
    if (atomic_load(&msc_state) != MSC_STATE_ON) return;
    /* The exit status is not known to an atexit handler: -1 says "unknown". */
    msc_sender_finish(MSC_END_EXIT, -1, 1, flush_timeout_ms());
}

static void on_crash(int sig, siginfo_t *info, void *uctx)
{
    int slot = 0;
    while (slot < N_CRASH && crash_signals[slot] != sig) slot++;
    if (!atomic_exchange(&in_crash, 1) && atomic_load(&msc_state) == MSC_STATE_ON) {
        /* A crash inside a call whose ENTER is held back (msc_enter_local): the analyzer must see the call. */
        if (msc_held_call) msc_emit_held();
        /* A crash after MPI completed operations and before the call's EXIT (a send buffer freed before its
         * Wait, whose checksum then faults): the COMPLETE records kept back for the EXIT go out. */
        if (msc_pending_call) msc_emit_pending();
        /* A fault inside an MPI call (MPI, or the shim's own reading of the call's buffers, dereferenced
         * something invalid): a finding at that call, which the analyzer reports unless it already explained the
         * call. Not SIGTERM (the launcher ending the ranks of a failed job, wherever they are). */
        msc_call *in_call = sig != SIGTERM ? msc_tls_call : NULL;
        if (in_call) {
            int faulting = sig == SIGSEGV || sig == SIGBUS || sig == SIGFPE || sig == SIGILL;
            msc_finding(in_call, MSC_CHECK_CRASH_IN_CALL, -1, sig,
                        (int64_t)(uintptr_t)(faulting && info ? info->si_addr : NULL), 0);
        }
        /* Where it happened: the analyzer names the faulting call site in its report. SIGTERM is how the
         * launcher ends the other ranks of a failed job, not a fault of this one: no stack for it. */
        if (sig != SIGTERM) msc_control_crash(sig, info, in_call != NULL);
        msc_sender_finish(MSC_END_SIGNAL, sig, 1, crash_timeout_ms);
    }
    if (slot == N_CRASH) return;
    /* Chain: put the previous disposition back and hand it the signal. */
    sigaction(sig, &previous[slot], NULL);
    struct sigaction *p = &previous[slot];
    if ((p->sa_flags & SA_SIGINFO) && p->sa_sigaction) {
        p->sa_sigaction(sig, info, uctx);
    } else if (p->sa_handler != SIG_DFL && p->sa_handler != SIG_IGN) {
        p->sa_handler(sig);
    } else {
        /* Default action: re-raised now (blocked until we return), or the faulting instruction faults again. */
        raise(sig);
    }
}

static void child_after_fork(void)
{
    atomic_store(&msc_state, MSC_STATE_OFF);
    msc_sender_forget();
}

void msc_lifecycle_install(void)
{
    crash_timeout_ms = flush_timeout_ms();
    atexit(on_exit_without_finalize);
    pthread_atfork(NULL, NULL, child_after_fork);
}

/* Installed after PMPI_Init returned, so that our handlers run first and then chain to the MPI library's own
 * (Open MPI installs backtrace handlers during MPI_Init). */
void msc_lifecycle_signals(void)
{
    const char *off = getenv("MPISCOPE_NO_SIGNALS");
    if (off && strcmp(off, "1") == 0) return;
    msc_control_crash_warm();
    for (int i = 0; i < N_CRASH; i++) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_sigaction = on_crash;
        sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
        sigemptyset(&sa.sa_mask);
        sigaction(crash_signals[i], &sa, &previous[i]);
    }
}

/* ---- MPI_ERRORS_ARE_FATAL, with the records delivered first ----
 *
 * A call that fails under MPI_ERRORS_ARE_FATAL never returns: MPI aborts the job from inside it, and the
 * launcher kills every rank (MPICH's hydra with SIGKILL) before their senders drain the rings. The analyzer
 * then sees a receive that never completed where a message was truncated, and reports the wrong bug. So the
 * predefined communicators get this handler instead: it records the failing call's EXIT with the error code
 * (what the call would have returned under MPI_ERRORS_RETURN), ends the stream, prints the error as MPI
 * would, and aborts. Communicators made later inherit it; a program that sets its own handler replaces it.
 * Not with MPISCOPE_NO_SIGNALS=1 (which leaves process-wide behaviour alone). */
static void on_fatal_error(MPI_Comm *comm, int *code, ...)
{
    int err = code ? *code : MPI_ERR_OTHER;
    if (atomic_load(&msc_state) == MSC_STATE_ON) {
        msc_call *c = msc_tls_call;
        if (c) {
            /* MPI's verdict on the call, as a finding at it: the error class (the libraries number the classes
             * differently, so by the spec's id). Off the hot path: only a failing call gets here. */
            int cls = MPI_ERR_OTHER;
            if (PMPI_Error_class(err, &cls) != MPI_SUCCESS) cls = MPI_ERR_OTHER;
            msc_finding(c, MSC_CHECK_MPI_ERROR, -1, err, msc_error_class_id(cls), 0);
            c->x[0] = err;
            c->nx = 1;
            msc_exit(c);
        }
        msc_sender_finish(MSC_END_ABORT, err, 1, flush_timeout_ms());
        /* The launcher kills the other ranks the moment this one aborts: a moment's grace lets their senders
         * deliver what their rings hold (the message this rank failed on, typically). */
        const char *g = getenv("MPISCOPE_ABORT_GRACE_MS");
        int grace = g ? atoi(g) : 300;
        if (grace > 0) {
            struct timespec ts = { grace / 1000, (long)(grace % 1000) * 1000000L };
            nanosleep(&ts, NULL);
        }
    }
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (PMPI_Error_string(err, text, &len) != MPI_SUCCESS) snprintf(text, sizeof text, "error code %d", err);
    fprintf(stderr, "Rank %d: fatal MPI error: %s (MPI_ERRORS_ARE_FATAL: aborting the job)\n", msc_world_rank, text);
    fflush(stderr);
    PMPI_Abort(comm ? *comm : MPI_COMM_WORLD, err);
}

static void replace_fatal(MPI_Comm comm, MPI_Errhandler ours)
{
    MPI_Errhandler current = MPI_ERRHANDLER_NULL;
    if (PMPI_Comm_get_errhandler(comm, &current) != MPI_SUCCESS) return;
    /* A predefined handler's handle needs no free (and Open MPI refuses to free it). */
    if (current == MPI_ERRORS_ARE_FATAL) PMPI_Comm_set_errhandler(comm, ours);
}

void msc_lifecycle_errors(void)
{
    const char *off = getenv("MPISCOPE_NO_SIGNALS");
    if (off && strcmp(off, "1") == 0) return;
    MPI_Errhandler ours;
    if (PMPI_Comm_create_errhandler(on_fatal_error, &ours) != MPI_SUCCESS) return;
    replace_fatal(MPI_COMM_WORLD, ours);
    replace_fatal(MPI_COMM_SELF, ours);
    /* The communicators keep it alive. */
    PMPI_Errhandler_free(&ours);
}
