/* TLS for the connection to the analyzer (wss://), when `mpiscope run --tls` listens on a network others
 * share. OpenSSL's libssl, loaded with dlopen only when the URL says wss: it is on every Debian machine (libssl3),
 * the default shim links nothing more and costs nothing more, and a host without it gets one clear line.
 *
 * No CA: the analyzer's certificate is self-signed for this session, and its SHA-256 fingerprint reaches the
 * ranks in MPISCOPE_TLS_FINGERPRINT. The handshake accepts any certificate (SSL_VERIFY_NONE); the peer has then
 * proved it holds the certificate's key, and the rank goes on only when that certificate's fingerprint is the
 * pinned one. After the handshake the socket is non-blocking: reads return at once (the sender polls), writes
 * wait for room (a bounded wait, as the plain socket's SO_SNDTIMEO). */
#define _GNU_SOURCE
#include <ctype.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "msc_shim.h"

/* The few symbols used, by their C signatures (opaque pointers; the ABI is stable across OpenSSL 1.1 and 3). */
static struct {
    const void *(*TLS_client_method)(void);
    void *(*SSL_CTX_new)(const void *);
    void (*SSL_CTX_free)(void *);
    void *(*SSL_new)(void *);
    void (*SSL_free)(void *);
    int (*SSL_set_fd)(void *, int);
    int (*SSL_connect)(void *);
    int (*SSL_write)(void *, const void *, int);
    int (*SSL_read)(void *, void *, int);
    int (*SSL_get_error)(const void *, int);
    int (*SSL_pending)(const void *);
    void *(*SSL_get1_peer_certificate)(const void *);
    const void *(*EVP_sha256)(void);
    int (*X509_digest)(const void *, const void *, unsigned char *, unsigned int *);
    void (*X509_free)(void *);
} ossl;

enum { WANT_READ = 2, WANT_WRITE = 3, ZERO_RETURN = 6 };

static void *ctx, *ssl;

static void *sym(void *h, const char *name, const char *alt)
{
    void *p = dlsym(h, name);
    return p || !alt ? p : dlsym(h, alt);
}

static int load(char *why, size_t whylen)
{
    static int loaded;
    if (loaded) return 1;
    void *h = dlopen("libssl.so.3", RTLD_NOW | RTLD_LOCAL);
    if (!h) h = dlopen("libssl.so.1.1", RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        snprintf(why, whylen, "the analyzer uses TLS (wss) and this host has no OpenSSL libssl (install libssl3)");
        return 0;
    }
#define SYM(name, alt)                                                                                                 \
    do {                                                                                                               \
        *(void **)&ossl.name = sym(h, #name, alt);                                                                     \
        if (!ossl.name) {                                                                                              \
            snprintf(why, whylen, "this host's libssl lacks %s", #name);                                              \
            return 0;                                                                                                  \
        }                                                                                                              \
    } while (0)
    SYM(TLS_client_method, NULL);
    SYM(SSL_CTX_new, NULL);
    SYM(SSL_CTX_free, NULL);
    SYM(SSL_new, NULL);
    SYM(SSL_free, NULL);
    SYM(SSL_set_fd, NULL);
    SYM(SSL_connect, NULL);
    SYM(SSL_write, NULL);
    SYM(SSL_read, NULL);
    SYM(SSL_get_error, NULL);
    SYM(SSL_pending, NULL);
    /* OpenSSL 1.1 names it SSL_get_peer_certificate (same contract: a reference the caller frees). */
    SYM(SSL_get1_peer_certificate, "SSL_get_peer_certificate");
    SYM(EVP_sha256, NULL);
    SYM(X509_digest, NULL);
    SYM(X509_free, NULL);
#undef SYM
    loaded = 1;
    return 1;
}

/* Parses a fingerprint as hex digits, colons and blanks allowed between them; 1 when it is 32 bytes. */
static int parse_fingerprint(const char *text, unsigned char out[32])
{
    int n = 0, half = -1;
    for (const char *p = text; *p; p++) {
        if (*p == ':' || *p == ' ') continue;
        if (!isxdigit((unsigned char)*p) || n >= 32) return 0;
        int v = isdigit((unsigned char)*p) ? *p - '0' : (tolower((unsigned char)*p) - 'a' + 10);
        if (half < 0) {
            half = v;
        } else {
            out[n++] = (unsigned char)(half << 4 | v);
            half = -1;
        }
    }
    return n == 32 && half < 0;
}

/* Waits until the socket is ready for what OpenSSL wants; 0 on timeout or error. */
static int wait_for(int fd, int err, int timeout_ms)
{
    struct pollfd p = { fd, err == WANT_WRITE ? POLLOUT : POLLIN, 0 };
    int r;
    do r = poll(&p, 1, timeout_ms);
    while (r < 0 && errno == EINTR);
    return r == 1;
}

void msc_tls_close(void)
{
    if (ssl) ossl.SSL_free(ssl);
    if (ctx) ossl.SSL_CTX_free(ctx);
    ssl = ctx = NULL;
}

int msc_tls_active(void) { return ssl != NULL; }

int msc_tls_start(int fd, int timeout_ms, char *why, size_t whylen)
{
    unsigned char want[32];
    const char *pin = getenv("MPISCOPE_TLS_FINGERPRINT");
    if (!pin || !parse_fingerprint(pin, want)) {
        snprintf(why, whylen,
                 "the analyzer uses TLS (wss) and MPISCOPE_TLS_FINGERPRINT is %s (it must be the certificate's SHA-256, "
                 "as mpiscope run --tls gives the ranks)",
                 pin ? "not a SHA-256 fingerprint" : "not set");
        return 0;
    }
    if (!load(why, whylen)) return 0;
    ctx = ossl.SSL_CTX_new(ossl.TLS_client_method());
    ssl = ctx ? ossl.SSL_new(ctx) : NULL;
    if (!ssl || !ossl.SSL_set_fd(ssl, fd)) {
        snprintf(why, whylen, "OpenSSL could not set up a TLS connection");
        msc_tls_close();
        return 0;
    }
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    for (;;) {
        int r = ossl.SSL_connect(ssl);
        if (r == 1) break;
        int e = ossl.SSL_get_error(ssl, r);
        if ((e != WANT_READ && e != WANT_WRITE) || !wait_for(fd, e, timeout_ms)) {
            snprintf(why, whylen, "the TLS handshake with the analyzer failed%s",
                     e == WANT_READ || e == WANT_WRITE ? " (no answer in time)" : " (is it listening with --tls?)");
            msc_tls_close();
            return 0;
        }
    }
    void *cert = ossl.SSL_get1_peer_certificate(ssl);
    unsigned char got[64];
    unsigned int len = 0;
    int ok = cert && ossl.X509_digest(cert, ossl.EVP_sha256(), got, &len) && len == 32;
    if (cert) ossl.X509_free(cert);
    if (!ok || memcmp(got, want, 32) != 0) {
        char hex[3 * 32 + 1] = "none";
        for (unsigned i = 0; ok && i < 32; i++) snprintf(hex + 3 * i, 4, "%02X%s", got[i], i < 31 ? ":" : "");
        snprintf(why, whylen,
                 "the server's TLS certificate (SHA-256 %.23s…) is not the one this session pinned in "
                 "MPISCOPE_TLS_FINGERPRINT: it is not this job's analyzer",
                 hex);
        msc_tls_close();
        return 0;
    }
    return 1;
}

int msc_tls_write(int fd, const void *p, size_t n, int patient)
{
    uint64_t progress = msc_now();
    const char *c = p;
    while (n) {
        int chunk = n > (1u << 30) ? 1 << 30 : (int)n;
        int r = ossl.SSL_write(ssl, c, chunk);
        if (r > 0) {
            c += r;
            n -= (size_t)r;
            progress = msc_now();
            continue;
        }
        int e = ossl.SSL_get_error(ssl, r);
        /* As the plain socket's SO_SNDTIMEO: an analyzer that takes nothing for 5 s is given up, unless the sender
         * is patient and the connection alive (msc_ws_send). */
        if (e != WANT_READ && e != WANT_WRITE) return -1;
        while (!wait_for(fd, e, msc_ws_send_timeout_ms()))
            if (!patient || !msc_ws_alive(fd) || msc_now() - progress >= MSC_WS_STALL_NS) return -1;
    }
    return 0;
}

ssize_t msc_tls_read(int fd, void *p, size_t n, int timeout_ms)
{
    for (;;) {
        int r = ossl.SSL_read(ssl, p, n > (1u << 30) ? 1 << 30 : (int)n);
        if (r > 0) return r;
        int e = ossl.SSL_get_error(ssl, r);
        if (e == ZERO_RETURN) return 0;
        if (e != WANT_READ && e != WANT_WRITE) return -1;
        if (timeout_ms == 0) return -2;
        if (!wait_for(fd, e, timeout_ms)) return -2;
    }
}

int msc_tls_pending(void) { return ssl && ossl.SSL_pending(ssl) > 0; }
