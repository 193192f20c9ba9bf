/* How a rank's stream ends when it does not end in MPI_Finalize: exit without Finalize (atexit), a crash
 * signal (flush, then chain to the handler that was there before), and fork (the child records nothing).
 * MPI_Finalize and MPI_Abort end the stream in their class handlers. */
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

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
    if (!atomic_exchange(&in_crash, 1) && atomic_load(&msc_state) == MSC_STATE_ON)
        msc_sender_finish(MSC_END_SIGNAL, sig, 1, crash_timeout_ms);
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
    for (int i = 0; i < N_CRASH; i++) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_sigaction = on_crash;
        sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
        sigemptyset(&sa.sa_mask);
        sigaction(crash_signals[i], &sa, &previous[i]);
    }
}
