/* A minimal RFC 6455 client over one blocking TCP socket: the opening handshake, masked frames out,
 * unmasked frames in. Only the sender thread (or an exit path that owns the sender's lock) uses it.
 * wss:// goes through msc_tls.c (OpenSSL loaded on demand, the certificate pinned by its fingerprint).
 * Not implemented, deliberately: fragmentation of outgoing
 * frames, extensions. The server's Sec-WebSocket-Accept is not verified: the connection is to a
 * loopback analyzer that already checks our token, and SHA-1 would be code without a benefit here. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <unistd.h>

#include "msc_shim.h"

static uint64_t rng_state;

static uint32_t next_random(void)
{
    if (!rng_state) {
        if (getrandom(&rng_state, sizeof rng_state, GRND_NONBLOCK) != sizeof rng_state)
            rng_state = msc_now() ^ ((uint64_t)getpid() << 32);
        rng_state |= 1;
    }
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state >> 11);
}

static void base64(const unsigned char *in, size_t n, char *out)
{
    static const char tbl[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t o = 0;
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)in[i] << 16 | (i + 1 < n ? (uint32_t)in[i + 1] << 8 : 0) | (i + 2 < n ? in[i + 2] : 0);
        out[o++] = tbl[v >> 18 & 63];
        out[o++] = tbl[v >> 12 & 63];
        out[o++] = i + 1 < n ? tbl[v >> 6 & 63] : '=';
        out[o++] = i + 2 < n ? tbl[v & 63] : '=';
    }
    out[o] = 0;
}

/* Percent-encodes a token for the query string. */
static void url_encode(const char *in, char *out, size_t cap)
{
    static const char hex[] = "0123456789ABCDEF";
    size_t o = 0;
    for (; *in && o + 4 < cap; in++) {
        unsigned char ch = (unsigned char)*in;
        if ((ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || strchr("-._~", ch)) {
            out[o++] = (char)ch;
        } else {
            out[o++] = '%';
            out[o++] = hex[ch >> 4];
            out[o++] = hex[ch & 15];
        }
    }
    out[o] = 0;
}

static int send_all(int fd, const void *p, size_t n)
{
    if (msc_tls_active()) return msc_tls_write(fd, p, n, 0);
    const char *c = p;
    while (n) {
        ssize_t k = send(fd, c, n, MSG_NOSIGNAL);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) return -1;
        c += k;
        n -= (size_t)k;
    }
    return 0;
}

/* Connects with a timeout; returns the fd (blocking mode) or -1 with the reason in why. */
static int connect_to(const char *host, const char *port, int timeout_ms, char *why, size_t whylen)
{
    struct addrinfo hints = { 0 }, *res = NULL;
    hints.ai_socktype = SOCK_STREAM;
    int gai = getaddrinfo(host, port, &hints, &res);
    if (gai != 0) {
        snprintf(why, whylen, "cannot resolve %s: %s", host, gai_strerror(gai));
        return -1;
    }
    int fd = -1;
    snprintf(why, whylen, "no address to connect to");
    for (struct addrinfo *ai = res; ai; ai = ai->ai_next) {
        fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
        if (fd < 0) continue;
        int fl = fcntl(fd, F_GETFL);
        fcntl(fd, F_SETFL, fl | O_NONBLOCK);
        int ok = connect(fd, ai->ai_addr, ai->ai_addrlen) == 0;
        int err = ok ? 0 : errno;
        if (!ok && errno == EINPROGRESS) {
            struct pollfd p = { fd, POLLOUT, 0 };
            socklen_t len = sizeof err;
            int ready = poll(&p, 1, timeout_ms);
            if (ready == 1 && getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) == 0 && err == 0) ok = 1;
            else if (ready == 0) err = ETIMEDOUT;
        }
        if (!ok) {
            if (err == ETIMEDOUT)
                snprintf(why, whylen, "no answer within %d ms (a firewall, or an address this host cannot reach)",
                         timeout_ms);
            else
                snprintf(why, whylen, "%s", strerror(err));
        }
        if (ok) {
            fcntl(fd, F_SETFL, fl);
            break;
        }
        close(fd);
        fd = -1;
    }
    freeaddrinfo(res);
    if (fd >= 0) {
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        /* A stalled analyzer must not stall the exit paths forever (the sender thread is patient: msc_ws_send). */
        int ms = msc_ws_send_timeout_ms();
        struct timeval tv = { ms / 1000, (ms % 1000) * 1000 };
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    }
    return fd;
}

int msc_ws_open(const char *url, const char *token, int timeout_ms, char *why, size_t whylen)
{
    snprintf(why, whylen, "the URL is not ws://HOST:PORT/ or wss://HOST:PORT/");
    int tls = strncmp(url, "wss://", 6) == 0;
    if (!tls && strncmp(url, "ws://", 5) != 0) return -1;
    const char *hp = url + (tls ? 6 : 5);
    const char *slash = strchr(hp, '/');
    char hostport[256], host[256], port[16] = "80";
    size_t hl = slash ? (size_t)(slash - hp) : strlen(hp);
    if (hl == 0 || hl >= sizeof hostport) return -1;
    memcpy(hostport, hp, hl);
    hostport[hl] = 0;
    const char *path = slash ? slash : "/";
    /* host:port, or [v6]:port */
    char *colon = hostport[0] == '[' ? strstr(hostport, "]:") : strrchr(hostport, ':');
    if (hostport[0] == '[') {
        char *end = strchr(hostport, ']');
        if (!end) return -1;
        snprintf(host, sizeof host, "%.*s", (int)(end - hostport - 1), hostport + 1);
        if (colon) snprintf(port, sizeof port, "%s", colon + 2);
    } else if (colon) {
        snprintf(host, sizeof host, "%.*s", (int)(colon - hostport), hostport);
        snprintf(port, sizeof port, "%s", colon + 1);
    } else {
        snprintf(host, sizeof host, "%s", hostport);
    }
    int fd = connect_to(host, port, timeout_ms, why, whylen);
    if (fd < 0) return -1;
    /* Connected, the analyzer is there: its answers get five times the connect bound (10 s by default). A
     * rank on a slow link that other traffic keeps full (a shared 512 kbit/s uplink with a bulk transfer)
     * saw the first byte of the 101 come after more than 2 s and ran unrecorded. */
    int answer_ms = timeout_ms > INT_MAX / 5 ? INT_MAX : timeout_ms * 5;
    if (tls && !msc_tls_start(fd, answer_ms, why, whylen)) {
        close(fd);
        return -1;
    }
    snprintf(why, whylen, "the analyzer did not complete the WebSocket handshake within %d ms", answer_ms);

    unsigned char keybytes[16];
    for (int i = 0; i < 16; i += 4) {
        uint32_t r = next_random();
        memcpy(keybytes + i, &r, 4);
    }
    char key[32], tok[512], req[2048];
    base64(keybytes, 16, key);
    url_encode(token, tok, sizeof tok);
    int n = snprintf(req, sizeof req,
                     "GET %s%stoken=%s HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                     "Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\nAuthorization: Bearer %s\r\n\r\n",
                     path, strchr(path, '?') ? "&" : "?", tok, hostport, key, token);
    if (n <= 0 || (size_t)n >= sizeof req || send_all(fd, req, (size_t)n) != 0) goto fail;

    /* Read the response head and nothing after it, which keeps any frame that follows in the socket for the
     * frame reader. Over TCP: peek at what has arrived, then take it up to the head's end (all of it while the
     * end has not come: those bytes are the head's) — a poll, a peek and a read where a byte at a time took a
     * poll and a read per byte (~260 system calls per rank). Over TLS, msc_tls_read buffers: byte by byte. */
    char resp[1024];
    size_t got = 0;
    for (;;) {
        if (got >= sizeof resp - 1) goto fail;
        ssize_t k;
        if (tls) {
            k = msc_tls_read(fd, resp + got, 1, answer_ms);
            if (k <= 0) goto fail;
            got++;
            if (got >= 4 && memcmp(resp + got - 4, "\r\n\r\n", 4) == 0) break;
            continue;
        }
        struct pollfd p = { fd, POLLIN, 0 };
        if (poll(&p, 1, answer_ms) != 1) goto fail;
        k = recv(fd, resp + got, sizeof resp - 1 - got, MSG_PEEK);
        if (k <= 0) goto fail;
        size_t end = 0;
        for (size_t i = got >= 3 ? got - 3 : 0; i + 4 <= got + (size_t)k; i++)
            if (memcmp(resp + i, "\r\n\r\n", 4) == 0) {
                end = i + 4;
                break;
            }
        size_t take = end ? end - got : (size_t)k;
        if (recv(fd, resp + got, take, 0) != (ssize_t)take) goto fail;
        got += take;
        if (end) break;
    }
    resp[got] = 0;
    if (strncmp(resp, "HTTP/1.1 101", 12) != 0) {
        /* 401: the token is not this session's (a rank of another run, or a stale MPISCOPE_TOKEN). */
        char *eol = strstr(resp, "\r\n");
        if (eol) *eol = 0;
        snprintf(why, whylen, "the analyzer refused the connection (%s)", got ? resp : "no answer");
        goto fail;
    }
    return fd;
fail:
    msc_ws_close(fd);
    return -1;
}

void msc_ws_close(int fd)
{
    msc_tls_close();
    if (fd >= 0) close(fd);
}

int msc_ws_pending(void) { return msc_tls_pending(); }

int msc_ws_send_timeout_ms(void)
{
    static int ms;
    if (ms == 0) {
        /* MPISCOPE_SEND_TIMEOUT_MS: for the tests that stop the analyzer for longer than it (default 5 s). */
        const char *t = getenv("MPISCOPE_SEND_TIMEOUT_MS");
        int v = t ? atoi(t) : 0;
        ms = v >= 100 ? v : 5000;
    }
    return ms;
}

int msc_ws_alive(int fd)
{
    struct pollfd p = { fd, POLLIN, 0 };
    int r;
    do r = poll(&p, 1, 0);
    while (r < 0 && errno == EINTR);
    if (r < 0 || (p.revents & (POLLERR | POLLHUP | POLLNVAL))) return 0;
    if (!(p.revents & POLLIN)) return 1;
    /* Readable: a control message, or the analyzer's orderly close (a read of 0 bytes). */
    char c;
    ssize_t k = recv(fd, &c, 1, MSG_PEEK | MSG_DONTWAIT);
    return k != 0 && !(k < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR);
}

int msc_ws_send(int fd, int opcode, unsigned char *payload, size_t len, int patient)
{
    unsigned char hdr[14];
    size_t h = 0;
    hdr[h++] = (unsigned char)(0x80 | opcode);
    if (len < 126) {
        hdr[h++] = (unsigned char)(0x80 | len);
    } else if (len < 65536) {
        hdr[h++] = 0x80 | 126;
        hdr[h++] = (unsigned char)(len >> 8);
        hdr[h++] = (unsigned char)len;
    } else {
        hdr[h++] = 0x80 | 127;
        for (int i = 7; i >= 0; i--) hdr[h++] = (unsigned char)((uint64_t)len >> (8 * i));
    }
    /* The frame is masked, as RFC 6455 requires of a client, with the all-zero key. Random keys exist to keep
     * attacker-chosen browser payloads from poisoning proxy caches; here the peer is a loopback analyzer and
     * the payload is our own records. The zero key spares both sides a pass over every byte, and the
     * analyzer's `ws` skips unmasking entirely for it (measured: unmasking in JavaScript cost more per record
     * than the whole hot path of the shim). */
    memset(hdr + h, 0, 4);
    h += 4;

    if (msc_tls_active())
        return msc_tls_write(fd, hdr, h, patient) != 0 || msc_tls_write(fd, payload, len, patient) != 0 ? -1 : 0;
    struct iovec iov[2] = { { hdr, h }, { payload, len } };
    struct msghdr msg = { 0 };
    msg.msg_iov = iov;
    msg.msg_iovlen = 2;
    size_t left = h + len;
    uint64_t progress = patient ? msc_now() : 0;
    while (left) {
        ssize_t k = sendmsg(fd, &msg, MSG_NOSIGNAL);
        if (k < 0 && errno == EINTR) continue;
        /* SO_SNDTIMEO (5 s) ran out with the analyzer alive but behind: the rank's sender waits on. */
        if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) && patient && msc_ws_alive(fd) &&
            msc_now() - progress < MSC_WS_STALL_NS)
            continue;
        if (k <= 0) return -1;
        if (patient) progress = msc_now();
        left -= (size_t)k;
        while (k > 0 && msg.msg_iovlen) {
            if ((size_t)k >= msg.msg_iov->iov_len) {
                k -= (ssize_t)msg.msg_iov->iov_len;
                msg.msg_iov++;
                msg.msg_iovlen--;
            } else {
                msg.msg_iov->iov_base = (char *)msg.msg_iov->iov_base + k;
                msg.msg_iov->iov_len -= (size_t)k;
                k = 0;
            }
        }
    }
    return 0;
}

static unsigned char rx[65536];
static size_t rx_len;

int msc_ws_poll_read(int fd, void (*on_text)(const char *text, size_t len))
{
    for (;;) {
        ssize_t k;
        if (msc_tls_active()) {
            k = msc_tls_read(fd, rx + rx_len, sizeof rx - rx_len, 0);
            if (k == -2) break; /* nothing more now */
            if (k < 0) return -1;
        } else {
            k = recv(fd, rx + rx_len, sizeof rx - rx_len, MSG_DONTWAIT);
        }
        if (k == 0) return -1;
        if (k < 0) {
            if (errno == EINTR) continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK) break;
            return -1;
        }
        rx_len += (size_t)k;
        if (rx_len == sizeof rx) break;
    }
    size_t off = 0;
    while (rx_len - off >= 2) {
        unsigned char *f = rx + off;
        int opcode = f[0] & 15, masked = f[1] & 0x80;
        uint64_t len = f[1] & 127;
        size_t h = 2;
        if (len == 126) {
            if (rx_len - off < 4) break;
            len = (uint64_t)f[2] << 8 | f[3];
            h = 4;
        } else if (len == 127) {
            if (rx_len - off < 10) break;
            len = 0;
            for (int i = 0; i < 8; i++) len = len << 8 | f[2 + i];
            h = 10;
        }
        if (masked) h += 4;
        /* Control messages are small; a frame that cannot fit the buffer is a protocol error. */
        if (len > sizeof rx - h) return -1;
        if (rx_len - off < h + len) break;
        unsigned char *pl = f + h;
        if (masked)
            for (uint64_t i = 0; i < len; i++) pl[i] ^= f[h - 4 + (i & 3)];
        if (opcode == 8) return MSC_WS_CLOSED;
        if (opcode == 9) msc_ws_send(fd, 10, pl, (size_t)len, 0);
        if (opcode == 1 && on_text) on_text((const char *)pl, (size_t)len);
        off += h + (size_t)len;
    }
    memmove(rx, rx + off, rx_len - off);
    rx_len -= off;
    return 0;
}
