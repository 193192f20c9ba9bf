/* Debugger control in the shim: pause, continue and function breakpoints (from the analyzer's control frames,
 * and for the first calls of a run from MPISCOPE_BREAK), and the `paused` acknowledgement a held thread sends,
 * with its backtrace. Nothing here is on the hot path: a wrapper comes here only when msc_attention is set.
 *
 * The acknowledgement carries the number of `continue` messages this rank had received when it stopped: the
 * analyzer compares it with the number it sent, so an acknowledgement that crossed a `continue` on the wire
 * (the thread was already released) is recognised as stale instead of reported as a stop. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <execinfo.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "msc_shim.h"

/* Frames sent with an acknowledgement, and the bound on its text (the sender's queue holds several). */
#define MAX_FRAMES 64
#define MAX_MODULES 16
#define ACK_CAP 12288

static pthread_mutex_t pause_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t pause_cv = PTHREAD_COND_INITIALIZER;
static int paused;
static uint32_t continues; /* guarded by pause_mu */
static unsigned char breakpoints[MSC_FN_COUNT];
static int n_breakpoints;

void msc_attention_update(void)
{
    atomic_store(&msc_attention, paused || n_breakpoints > 0 || atomic_load(&msc_after_finalize) ||
                                     atomic_load(&msc_before_init) || atomic_load(&msc_checks_off_untold));
}

void msc_attention_raise(void)
{
    pthread_mutex_lock(&pause_mu);
    msc_attention_update();
    pthread_mutex_unlock(&pause_mu);
}

void msc_control_pause(int on)
{
    pthread_mutex_lock(&pause_mu);
    paused = on;
    msc_attention_update();
    if (!on) pthread_cond_broadcast(&pause_cv);
    pthread_mutex_unlock(&pause_mu);
}

void msc_control_continue(void)
{
    pthread_mutex_lock(&pause_mu);
    continues++;
    paused = 0;
    msc_attention_update();
    pthread_cond_broadcast(&pause_cv);
    pthread_mutex_unlock(&pause_mu);
}

void msc_control_breakpoints(const unsigned char *fns)
{
    pthread_mutex_lock(&pause_mu);
    n_breakpoints = 0;
    for (int i = 0; i < MSC_FN_COUNT; i++) n_breakpoints += (breakpoints[i] = fns[i]) != 0;
    msc_attention_update();
    pthread_mutex_unlock(&pause_mu);
}

int msc_func_id(const char *name, size_t len)
{
    for (int i = 0; i < MSC_FN_COUNT; i++)
        if (strlen(msc_func_names[i]) == len && memcmp(msc_func_names[i], name, len) == 0) return i;
    return -1;
}

/* MPISCOPE_BREAK=MPI_Barrier,MPI_Bcast: breakpoints from the start, so that calls made before the analyzer's
 * `breakpoints` message can reach this rank (a short program may be past them by then) still stop. */
void msc_control_breakpoints_from_env(void)
{
    const char *list = getenv("MPISCOPE_BREAK");
    if (!list || !*list) return;
    unsigned char fns[MSC_FN_COUNT] = { 0 };
    for (const char *p = list; *p;) {
        size_t n = strcspn(p, ", ");
        int id = msc_func_id(p, n);
        if (id >= 0) fns[id] = 1;
        p += n;
        while (*p == ',' || *p == ' ') p++;
    }
    msc_control_breakpoints(fns);
}

/* The loaded object whose PT_LOAD segments hold an address: what dladdr1 finds, without its symbol search. */
struct module_search {
    uintptr_t addr;
    uintptr_t bias;
    const char *name;
};

static int find_module(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    struct module_search *s = data;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t start = info->dlpi_addr + ph->p_vaddr;
        if (ph->p_type == PT_LOAD && s->addr >= start && s->addr - start < ph->p_memsz) {
            s->bias = info->dlpi_addr;
            s->name = info->dlpi_name;
            return 1;
        }
    }
    return 0;
}

/* Module and offset of an address, for SITE records and backtraces. dl_iterate_phdr rather than dladdr1: dladdr1
 * also looks for the nearest symbol, a walk of the module's whole dynamic symbol table that nobody here reads
 * (37 us an address in LAMMPS's liblammps.so, 15,345 symbols: 12% of the sender threads' samples on LAMMPS, one
 * call per new call site); the segment walk takes well under a microsecond. */
int msc_addr_module(uint64_t addr, uint64_t *offset, char *path, size_t cap)
{
    struct module_search s = { (uintptr_t)addr, 0, NULL };
    *offset = addr;
    path[0] = 0;
    if (!dl_iterate_phdr(find_module, &s) || !s.name) return 0;
    *offset = addr - (uint64_t)s.bias;
    if (s.name[0] == '/') {
        snprintf(path, cap, "%s", s.name);
    } else {
        /* The main program's has an empty name. */
        ssize_t k = readlink("/proc/self/exe", path, cap - 1);
        path[k > 0 ? k : 0] = 0;
    }
    return 1;
}

/* Appends to a bounded buffer; returns 0 (and leaves the buffer as it was) when the text does not fit. */
static int append(char *buf, size_t *len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int append(char *buf, size_t *len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf + *len, ACK_CAP - *len, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= ACK_CAP - *len) {
        buf[*len] = 0;
        return 0;
    }
    *len += (size_t)n;
    return 1;
}

static void append_escaped(char *buf, size_t *len, const char *s)
{
    char tmp[4096];
    size_t o = 0;
    for (; *s && o + 2 < sizeof tmp; s++) {
        if (*s == '"' || *s == '\\') tmp[o++] = '\\';
        tmp[o++] = (unsigned char)*s < 0x20 ? '?' : *s;
    }
    tmp[o] = 0;
    append(buf, len, "\"%s\"", tmp);
}

static const void *own_base(void)
{
    Dl_info self;
    return dladdr((void *)own_base, &self) ? self.dli_fbase : NULL;
}

static int in_shim(void *addr)
{
    Dl_info info;
    return dladdr(addr, &info) && info.dli_fbase == own_base();
}

/*
 * Writes bt[from..n) as `,"frames":[[address, offset in module, module index]...],"modules":[paths]`: the
 * callers below a call site, innermost first, with what addr2line needs.
 */
static void frames_json(char *buf, size_t *len, void *const *bt, int from, int n)
{
    static __thread char modules[MAX_MODULES][1024];
    int n_modules = 0;
    append(buf, len, ",\"frames\":[");
    int first = 1;
    for (int i = from; i < n; i++) {
        uint64_t addr = (uint64_t)(uintptr_t)bt[i], offset;
        char path[1024];
        if (!msc_addr_module(addr, &offset, path, sizeof path)) continue;
        int m = 0;
        while (m < n_modules && strcmp(modules[m], path) != 0) m++;
        if (m == n_modules) {
            if (n_modules == MAX_MODULES) break;
            snprintf(modules[n_modules++], sizeof modules[0], "%s", path);
        }
        /* Leave room for the module list and the closing braces. */
        if (*len + 64 + (size_t)n_modules * 1100 > ACK_CAP) break;
        if (!append(buf, len, "%s[%llu,%llu,%d]", first ? "" : ",", (unsigned long long)addr,
                    (unsigned long long)offset, m))
            break;
        first = 0;
    }
    append(buf, len, "],\"modules\":[");
    for (int m = 0; m < n_modules; m++) {
        if (m) append(buf, len, ",");
        append_escaped(buf, len, modules[m]);
    }
    append(buf, len, "]");
}

/* The acknowledgement of a held thread; called with pause_mu held, before it waits. */
static void queue_held(const msc_call *c, const char *reason)
{
    static __thread char msg[ACK_CAP];
    void *bt[MAX_FRAMES];
    int n = backtrace(bt, MAX_FRAMES);
    size_t len = 0;
    append(msg, &len,
           "{\"type\":\"paused\",\"seq\":%u,\"function\":\"%s\",\"reason\":\"%s\",\"continues\":%u,\"site\":%llu", c->seq,
           msc_func_names[c->func], reason, continues, (unsigned long long)c->site);
    /* Below the shim's own frames is the call site (already the ENTER's site): the frames after it. */
    int from = 0;
    while (from < n && in_shim(bt[from])) from++;
    if (from < n && (uint64_t)(uintptr_t)bt[from] == c->site) from++;
    frames_json(msg, &len, bt, from, n);
    append(msg, &len, "}");
    msc_sender_queue_text(msg);
}

/* Called at a call's entry (its ENTER already in the ring) when the analyzer asked for attention. */
void msc_pause_point(msc_call *c)
{
    /* A check that went off since the last call is named first (msc_table.c). */
    if (atomic_load(&msc_checks_off_untold)) msc_checks_off_tell(c);
    /* Outside MPI_Init..MPI_Finalize, MPI aborts on most calls: the call is sent before MPI sees it. */
    if (atomic_load(&msc_after_finalize) || atomic_load(&msc_before_init)) {
        msc_sender_flush(2000);
        return;
    }
    pthread_mutex_lock(&pause_mu);
    const char *reason = "pause";
    if (breakpoints[c->func]) {
        paused = 1;
        reason = "breakpoint";
        msc_attention_update();
    }
    if (paused && atomic_load(&msc_connected)) {
        queue_held(c, reason);
        /* Each `continue` releases the threads held when it came, even if a `pause` follows at once: that is
         * how the debugger steps one rank to its next call (server/src/session/rank-control.ts, step). */
        uint32_t seen = continues;
        while (paused && continues == seen && atomic_load(&msc_connected)) pthread_cond_wait(&pause_cv, &pause_mu);
    }
    pthread_mutex_unlock(&pause_mu);
}

/* ---- where a crash happened ----
 *
 * Called by the crash handler (msc_lifecycle.c) of the faulting thread, before the stream's END: the stack of
 * that thread, as {"type":"crash","signal":S,"address":A,"frames":[...],"modules":[...]} (address: the
 * faulting data address of SIGSEGV/SIGBUS/SIGFPE/SIGILL, else 0; frames: innermost first, below the shim's own
 * handler frames, so the signal trampoline, then the faulting instruction, then its callers). The analyzer
 * resolves them and names the first frame in the program's own code as where the rank died. backtrace() is
 * warmed up when the handlers are installed, so it loads nothing here; like the backtrace probe, it could
 * deadlock only if the thread crashed while holding the loader's or the unwinder's lock, and the crash path is
 * bounded only by the launcher then (the same risk as any handler that prints a backtrace, as MPI's own do). */
void msc_control_crash(int sig, const siginfo_t *info, int in_call)
{
    static char msg[ACK_CAP];
    void *bt[MAX_FRAMES];
    int n = backtrace(bt, MAX_FRAMES);
    size_t len = 0;
    int faulting = sig == SIGSEGV || sig == SIGBUS || sig == SIGFPE || sig == SIGILL;
    append(msg, &len, "{\"type\":\"crash\",\"signal\":%d,\"address\":%llu", sig,
           (unsigned long long)(uintptr_t)(faulting && info ? info->si_addr : NULL));
    int from = 0;
    while (from < n && in_shim(bt[from])) from++;
    frames_json(msg, &len, bt, from, n);
    /* inCall: the thread was inside an intercepted MPI call (the rank ending says "inside MPI_X"). */
    append(msg, &len, in_call ? ",\"inCall\":true}" : "}");
    msc_sender_queue_text(msg);
}

void msc_control_crash_warm(void)
{
    void *warm[4];
    backtrace(warm, 4);
    (void)own_base();
}

/* ---- the backtrace of a thread blocked inside MPI (a deadlocked rank under the debugger) ----
 *
 * A blocked thread is not at a call entry, so it cannot answer by itself. On the analyzer's `backtrace`
 * request the sender thread sends PROBE_SIGNAL to the thread that called MPI_Init; its handler only runs
 * backtrace() into a static array and wakes the sender, which formats and sends the answer. Why this is safe
 * enough, and when it is not done at all:
 * - backtrace() is warmed up once at start (its first call loads libgcc_s, which is not async-signal-safe);
 *   after that it walks the stack with the unwinder and dl_iterate_phdr. It could deadlock only if the
 *   interrupted thread held the loader's or the unwinder's lock, i.e. was itself loading a library or
 *   unwinding an exception; the analyzer asks only for ranks it sees blocked in an MPI call.
 * - Only under MPI_THREAD_SINGLE or FUNNELED, where the MPI_Init thread is the one in MPI.
 * - Only when PROBE_SIGNAL had no handler (an application's own use of it wins), and not with
 *   MPISCOPE_NO_SIGNALS=1. The handler is installed with SA_RESTART and keeps errno, so a system call the MPI
 *   library is blocked in is restarted (or returns EINTR where the kernel never restarts it, poll/epoll, which
 *   MPI libraries retry).
 * The answer is {"type":"backtrace","site":A,"frames":[...],"modules":[...]} (site: the return address into
 * the application of the MPI call the thread is in; frames: the callers below it), or
 * {"type":"backtrace","error":"why"}. */
#define PROBE_SIGNAL (SIGRTMAX - 3)
#define PROBE_TIMEOUT_NS 1000000000ull

static pthread_t probe_thread;
static int probe_ready;
static void *probe_bt[MAX_FRAMES];
static int probe_n;
/* 0 idle, 1 signal sent, 2 the handler captured probe_bt. */
static _Atomic int probe_state;
static uint64_t probe_deadline;

static void on_probe(int sig, siginfo_t *info, void *uctx)
{
    (void)sig, (void)info, (void)uctx;
    int saved = errno;
    if (atomic_load(&probe_state) == 1) {
        probe_n = backtrace(probe_bt, MAX_FRAMES);
        atomic_store(&probe_state, 2);
        msc_sender_wake();
    }
    errno = saved;
}

void msc_control_probe_install(void)
{
    const char *off = getenv("MPISCOPE_NO_SIGNALS");
    if ((off && strcmp(off, "1") == 0) || msc_thread_level > 1) return;
    void *warm[4];
    backtrace(warm, 4);
    struct sigaction old, sa;
    if (sigaction(PROBE_SIGNAL, NULL, &old) != 0) return;
    if ((old.sa_flags & SA_SIGINFO) || old.sa_handler != SIG_DFL) return;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_probe;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigfillset(&sa.sa_mask);
    if (sigaction(PROBE_SIGNAL, &sa, NULL) != 0) return;
    probe_thread = pthread_self();
    probe_ready = 1;
}

static void probe_error(const char *why)
{
    char msg[256];
    snprintf(msg, sizeof msg, "{\"type\":\"backtrace\",\"error\":\"%s\"}", why);
    msc_sender_queue_text(msg);
}

/* Sender thread: the analyzer asked for the blocked thread's backtrace. */
void msc_control_probe_request(void)
{
    if (!probe_ready) {
        probe_error(msc_thread_level > 1 ? "the rank calls MPI from several threads"
                                         : "the rank cannot be interrupted (MPISCOPE_NO_SIGNALS, or the signal is in use)");
        return;
    }
    int idle = 0;
    /* One at a time: a request while one is under way gets that one's answer. */
    if (!atomic_compare_exchange_strong(&probe_state, &idle, 1)) return;
    probe_deadline = msc_now() + PROBE_TIMEOUT_NS;
    if (pthread_kill(probe_thread, PROBE_SIGNAL) != 0) {
        atomic_store(&probe_state, 0);
        probe_error("the thread that called MPI_Init is gone");
    }
}

/* Sender thread, every round: sends the answer once the handler has run, or says it did not in time. */
void msc_control_probe_poll(void)
{
    int st = atomic_load(&probe_state);
    if (st == 1 && msc_now() > probe_deadline) {
        int expected = 1;
        /* The handler may still run later: it then finds the state idle and does nothing. */
        if (atomic_compare_exchange_strong(&probe_state, &expected, 0)) probe_error("the thread did not answer in time");
        return;
    }
    if (st != 2) return;
    static char msg[ACK_CAP];
    size_t len = 0;
    /* Innermost first: the handler, the signal trampoline, the MPI library, the shim's wrapper, then the call
     * site in the application. The last shim frame is the wrapper; none means the thread is not in MPI. */
    int last_shim = -1;
    for (int i = 1; i < probe_n; i++)
        if (in_shim(probe_bt[i])) last_shim = i;
    int site_at = last_shim + 1;
    if (last_shim < 1 || site_at >= probe_n) {
        atomic_store(&probe_state, 0);
        probe_error("the thread is not in an MPI call");
        return;
    }
    append(msg, &len, "{\"type\":\"backtrace\",\"site\":%llu", (unsigned long long)(uintptr_t)probe_bt[site_at]);
    frames_json(msg, &len, probe_bt, site_at + 1, probe_n);
    append(msg, &len, "}");
    atomic_store(&probe_state, 0);
    msc_sender_queue_text(msg);
}
