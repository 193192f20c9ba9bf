/* Call sites of ranks whose binaries the analyzer cannot read.
 *
 * The analyzer resolves a SITE (module path + offset) with addr2line on its own machine. A rank on another
 * host may run a binary that is not at that path there, or is another build of it. So before the first SITE
 * of each module the sender sends {"type":"module","path":P,"buildId":"hex","size":N,"mtime":S}; the
 * analyzer compares it with its own file at P and, when it is not the same file, answers
 * {"type":"resolve","module":P}. From then on the sender thread resolves that module's sites itself, off the
 * hot path: it runs addr2line on this host (the rank's, where the binary and its debug info are) and sends
 * {"type":"sites","module":P,"sites":[[ADDRESS,"function","file",LINE],...]}. Sites interned before the
 * answer came are resolved too. Everything here runs in the sender thread (or an exit path holding send_mu).
 */
#define _GNU_SOURCE
#include <link.h>
#include <pthread.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "msc_shim.h"

#define MAX_MODULES 256

extern char **environ;

typedef struct module {
    char path[1024];
    /* The program itself: addr2line reads /proc/PID/exe, which is the running binary even when the file
     * at its path was replaced or deleted since it started (a rebuild while the job runs). */
    int is_main;
    int self_resolve;
    /* Sites interned in this module: return addresses and their offsets; [resolved, n) are still to resolve. */
    uint64_t *addr, *offset;
    size_t n, cap, resolved;
} module;

static module modules[MAX_MODULES];
static int n_modules;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;

struct build_id_search {
    const char *path;
    int is_main;
    char hex[128];
};

static int find_build_id(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    struct build_id_search *s = data;
    int main_object = info->dlpi_name == NULL || info->dlpi_name[0] == 0;
    if (s->is_main ? !main_object : (main_object || strcmp(info->dlpi_name, s->path) != 0)) return 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_NOTE) continue;
        const unsigned char *p = (const unsigned char *)(info->dlpi_addr + ph->p_vaddr);
        const unsigned char *end = p + ph->p_memsz;
        while (p + sizeof(ElfW(Nhdr)) <= end) {
            const ElfW(Nhdr) *nh = (const ElfW(Nhdr) *)p;
            const unsigned char *name = p + sizeof *nh;
            const unsigned char *desc = name + ((nh->n_namesz + 3) & ~3u);
            if (desc + nh->n_descsz > end) break;
            if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 && memcmp(name, "GNU", 4) == 0) {
                size_t o = 0;
                for (unsigned k = 0; k < nh->n_descsz && o + 3 < sizeof s->hex; k++)
                    o += (size_t)snprintf(s->hex + o, sizeof s->hex - o, "%02x", desc[k]);
                return 1;
            }
            p = desc + ((nh->n_descsz + 3) & ~3u);
        }
    }
    return 1;
}

static void json_string(char *out, size_t cap, size_t *o, const char *s)
{
    if (*o + 2 >= cap) return;
    out[(*o)++] = '"';
    for (; *s && *o + 8 < cap; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') {
            out[(*o)++] = '\\';
            out[(*o)++] = (char)c;
        } else if (c < 0x20) {
            *o += (size_t)snprintf(out + *o, cap - *o, "\\u%04x", c);
        } else {
            out[(*o)++] = (char)c;
        }
    }
    out[(*o)++] = '"';
    out[*o] = 0;
}

/* The module's index, adding it (and writing its module message into text) the first time. */
static int module_index(const char *path, char *text, size_t cap, int *is_new)
{
    *is_new = 0;
    for (int i = 0; i < n_modules; i++)
        if (strcmp(modules[i].path, path) == 0) return i;
    if (n_modules == MAX_MODULES) return -1;
    module *m = &modules[n_modules];
    memset(m, 0, sizeof *m);
    snprintf(m->path, sizeof m->path, "%s", path);
    char exe[1024];
    ssize_t k = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[k > 0 ? k : 0] = 0;
    m->is_main = strcmp(exe, path) == 0;
    struct build_id_search s = { path, m->is_main, "" };
    dl_iterate_phdr(find_build_id, &s);
    struct stat st;
    long long size = -1, mtime = -1;
    if (stat(path, &st) == 0) {
        size = (long long)st.st_size;
        mtime = (long long)st.st_mtime;
    }
    size_t o = 0;
    o += (size_t)snprintf(text, cap, "{\"type\":\"module\",\"path\":");
    json_string(text, cap, &o, path);
    if (o + 200 < cap)
        snprintf(text + o, cap - o, ",\"buildId\":\"%s\",\"size\":%lld,\"mtime\":%lld}", s.hex, size, mtime);
    *is_new = 1;
    return n_modules++;
}

int msc_sites_note(uint64_t address, uint64_t offset, const char *path, char *text, size_t cap)
{
    int is_new = 0;
    pthread_mutex_lock(&mu);
    int i = path[0] ? module_index(path, text, cap, &is_new) : -1;
    if (i >= 0) {
        module *m = &modules[i];
        if (m->n == m->cap) {
            size_t ncap = m->cap ? m->cap * 2 : 64;
            uint64_t *a = realloc(m->addr, ncap * sizeof *a);
            if (a) m->addr = a;
            uint64_t *f = a ? realloc(m->offset, ncap * sizeof *f) : NULL;
            if (f) m->offset = f;
            if (a && f) m->cap = ncap;
        }
        if (m->n < m->cap) {
            m->addr[m->n] = address;
            m->offset[m->n] = offset;
            m->n++;
        }
    }
    pthread_mutex_unlock(&mu);
    return is_new;
}

void msc_sites_resolve_request(const char *t, size_t len)
{
    const char *k = memmem(t, len, "\"module\"", 8);
    if (!k) return;
    const char *q = memchr(k + 8, '"', len - (size_t)(k + 8 - t));
    if (!q) return;
    char path[1024];
    size_t n = 0;
    for (const char *p = q + 1; p < t + len && *p != '"' && n + 1 < sizeof path; p++) {
        if (*p == '\\' && p + 1 < t + len) p++;
        path[n++] = *p;
    }
    path[n] = 0;
    pthread_mutex_lock(&mu);
    for (int i = 0; i < n_modules; i++)
        if (strcmp(modules[i].path, path) == 0) modules[i].self_resolve = 1;
    pthread_mutex_unlock(&mu);
}

/* Runs addr2line -f -C -e PATH on the queries and reads its answers: two lines per address. Without
 * LD_PRELOAD, so the shim is not loaded into it. Returns the output (malloc'ed) or NULL.
 * llvm-addr2line when the host has it, as the analyzer does (server/src/session/site-resolver.ts): binutils
 * 2.40's addr2line names the including .c file for a header's code at the start of a DWARF 5 line table; the
 * same options give the same two lines per address. */
static char *run_addr2line(const char *path, const uint64_t *queries, size_t n)
{
    size_t nargs = 5 + n + 1;
    char **argv = calloc(nargs, sizeof *argv);
    char *nums = malloc(n * 24 + 1);
    size_t ne = 0;
    for (char **e = environ; e && *e; e++) ne++;
    char **envp = calloc(ne + 1, sizeof *envp);
    char *out = NULL;
    int fds[2] = { -1, -1 };
    if (!argv || !nums || !envp || pipe(fds) != 0) goto done;
    size_t a = 0;
    argv[a++] = "addr2line";
    argv[a++] = "-f";
    argv[a++] = "-C";
    argv[a++] = "-e";
    argv[a++] = (char *)path;
    for (size_t i = 0; i < n; i++) {
        argv[a++] = nums + i * 24;
        snprintf(nums + i * 24, 24, "0x%llx", (unsigned long long)queries[i]);
    }
    size_t j = 0;
    for (char **e = environ; e && *e; e++)
        if (strncmp(*e, "LD_PRELOAD=", 11) != 0) envp[j++] = *e;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
    posix_spawn_file_actions_addclose(&fa, fds[0]);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", 0, 0);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", 1, 0);
    pid_t pid;
    argv[0] = "llvm-addr2line";
    int rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, envp);
    if (rc != 0) {
        argv[0] = "addr2line";
        rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, envp);
    }
    posix_spawn_file_actions_destroy(&fa);
    close(fds[1]);
    fds[1] = -1;
    if (rc != 0) goto done;
    size_t cap = 4096, len = 0;
    out = malloc(cap);
    for (;;) {
        if (!out) break;
        if (len + 1024 > cap) {
            char *b = realloc(out, cap * 2);
            if (!b) break;
            out = b;
            cap *= 2;
        }
        ssize_t k = read(fds[0], out + len, cap - len - 1);
        if (k <= 0) break;
        len += (size_t)k;
    }
    if (out) out[len] = 0;
    int status;
    waitpid(pid, &status, 0);
done:
    if (fds[0] >= 0) close(fds[0]);
    if (fds[1] >= 0) close(fds[1]);
    free(argv);
    free(nums);
    free(envp);
    return out;
}

/* Resolves the sites of self-resolved modules not sent yet; each module's answer goes to send(text). Called
 * by the sender thread without send_mu (addr2line takes milliseconds); send takes it. */
void msc_sites_work(void (*send)(const char *text))
{
    for (int i = 0;; i++) {
        pthread_mutex_lock(&mu);
        if (i >= n_modules) {
            pthread_mutex_unlock(&mu);
            return;
        }
        module *m = &modules[i];
        size_t from = m->resolved, to = m->n;
        if (!m->self_resolve || from == to) {
            pthread_mutex_unlock(&mu);
            continue;
        }
        char path[sizeof m->path];
        if (m->is_main) snprintf(path, sizeof path, "/proc/%d/exe", (int)getpid());
        else memcpy(path, m->path, sizeof path);
        char name[sizeof m->path];
        memcpy(name, m->path, sizeof name);
        size_t n = to - from;
        uint64_t *q = malloc(n * sizeof *q), *addr = malloc(n * sizeof *addr);
        if (q && addr) {
            for (size_t k = 0; k < n; k++) {
                /* A return address points after the call: one byte back is inside the call's line. */
                q[k] = m->offset[from + k] ? m->offset[from + k] - 1 : 0;
                addr[k] = m->addr[from + k];
            }
            m->resolved = to;
        }
        pthread_mutex_unlock(&mu);
        if (!q || !addr) {
            free(q);
            free(addr);
            return;
        }
        char *out = run_addr2line(path, q, n);
        size_t cap = 256 + n * 1200 + strlen(name) * 2, o = 0;
        char *text = malloc(cap);
        if (text) {
            o += (size_t)snprintf(text, cap, "{\"type\":\"sites\",\"module\":");
            json_string(text, cap, &o, name);
            o += (size_t)snprintf(text + o, cap - o, ",\"sites\":[");
            char *save = NULL;
            for (size_t k = 0; k < n; k++) {
                char *fn = out ? strtok_r(k == 0 ? out : NULL, "\n", &save) : NULL;
                char *where = fn ? strtok_r(NULL, "\n", &save) : NULL;
                char file[512] = "";
                long ln = 0;
                if (where) {
                    char *disc = strstr(where, " (discriminator");
                    if (disc) *disc = 0;
                    char *colon = strrchr(where, ':');
                    if (colon) {
                        *colon = 0;
                        ln = strtol(colon + 1, NULL, 10);
                    }
                    if (strcmp(where, "??") != 0) snprintf(file, sizeof file, "%s", where);
                }
                if (fn && strcmp(fn, "??") == 0) fn = NULL;
                if (o + 1200 > cap) break;
                o += (size_t)snprintf(text + o, cap - o, "%s[%llu,", k ? "," : "", (unsigned long long)addr[k]);
                json_string(text, cap, &o, fn ? fn : "");
                text[o++] = ',';
                json_string(text, cap, &o, file);
                o += (size_t)snprintf(text + o, cap - o, ",%ld]", ln);
            }
            snprintf(text + o, cap - o, "]}");
            send(text);
        }
        free(text);
        free(out);
        free(q);
        free(addr);
    }
}
