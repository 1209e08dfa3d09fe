/* SPDX-License-Identifier: BSD-3-Clause */
/* The parent side of the HDF5 scan: the context's helper (helper.c),
 * spawned on the first HDF5 file, forks one caged child per file; the
 * parent hands it the input, reads the child's records through one fixed
 * buffer, and turns the way the child ended into a verdict.
 *
 * The parent allocates one buffer of 2 * NPYG__H5_LINE bytes through the
 * context's allocator (and the helper's path, when the caller sets one)
 * and nothing else, whatever the file or the child does. The child is
 * assumed compromised by the file: a line longer than NPYG__H5_LINE, more
 * records than the limits allow, a code outside the ones the walk reports
 * or any other garbage is the file's verdict (NPYG_EHDF5_PROTOCOL), and
 * the child is killed.
 *
 * A load (npyg_hdf5_load) also reads the values that follow the load
 * records (h5internal.h): each .npy preamble and header into one more
 * buffer (at most 64 KiB + 12 bytes), validated by npyg_parse_header under
 * the context's limits and checked against its record; only then is the
 * sink asked for a buffer of exactly the validated size, filled straight
 * from the pipe. The values' memory is the sink's, never the context's.
 */
#define _GNU_SOURCE
#include "h5internal.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define BUF_SIZE NPYG__H5_PARENT_BUF

static bool limits_valid(const npyg_hdf5_limits *l) { return npyg__h5_limits_valid(l); }

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* A file's share of the child's CPU and wall-clock limits. The work a
   file can legitimately need grows with its size (its objects, data and
   heaps all take bytes of it), so a small file on which libhdf5 loops
   ends in seconds rather than at the limits a large file needs: a file
   of size bytes gets cap x (1 MiB + size) / 20 MiB, rounded up, at least
   least seconds and at most cap (the limit as set, which files of 19 MiB
   or more get whole; raising it raises every file's share). */
#define SHARE_BASE (UINT64_C(1) << 20)
#define SHARE_FULL (UINT64_C(20) << 20)
static uint32_t share(uint32_t cap, uint64_t size, uint32_t least)
{
    uint64_t part = size < SHARE_FULL - SHARE_BASE ? size + SHARE_BASE : SHARE_FULL;
    uint64_t s = ((uint64_t)cap * part + SHARE_FULL - 1) / SHARE_FULL;
    if (s < least) s = least;
    return s < cap ? (uint32_t)s : cap;
}

/* Splits line at tabs into at most max fields; returns the count. */
static int split(char *line, char **f, int max)
{
    int n = 0;
    f[n++] = line;
    for (char *p = line; *p && n < max; p++)
        if (*p == '\t') {
            *p = '\0';
            f[n++] = p + 1;
        }
    return n;
}

static bool parse_int(const char *s, long long lo, long long hi, long long *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi) return false;
    *out = v;
    return true;
}

/* The codes the child's walk reports (walk.c, storage.c, child.c); any
   other would be the child speaking for the parent. */
static bool child_code(int code)
{
    return code == 0 || code == NPYG_ELIMIT_PAYLOAD || code == NPYG_EHDF5_OPEN ||
           code == NPYG_EHDF5_SANDBOX || (code >= NPYG_EHDF5_OBJECT && code <= NPYG_EHDF5_FORMAT) ||
           code == NPYG_ELIMIT_OBJECTS || code == NPYG_ELIMIT_NESTING ||
           (code >= NPYG_ELIMIT_PATHS && code <= NPYG_ELIMIT_LOAD);
}

typedef struct {
    npyg_ctx *ctx;
    npyg_hdf5_object_fn fn;
    void *user;
    uint64_t records;
    uint64_t max_records;
    bool ended;
    bool stopped;     /* the callback (or the sink) asked to stop */
    int end_code;
    char end_msg[NPYG__H5_MSG_MAX + 8];
    /* a load */
    const npyg_hdf5_sink *sink;
    char *hbuf;       /* one .npy preamble and header */
    size_t hcap;
    uint64_t sum;     /* of the lengths just read */
    char where[NPYG__H5_LINE]; /* the object whose value is on its way */
    char why[240];    /* how its record broke the protocol */
    int limit;        /* or the parser's limit (50-55) it passed */
    npyg__input *src; /* the input, for values read from it ("at:") */
    bool at_file;     /* the value on its way is read from src at at */
    uint64_t at;
    uint64_t loaded;  /* bytes of every value accepted, against max_load */
    uint64_t max_load;
} reader;

/* The kind a record names; 0 for a name that is none. */
static npyg_hdf5_kind kind_named(const char *name)
{
    for (int k = NPYG_HDF5_FILE; k <= NPYG_HDF5_LINK; k++)
        if (!strcmp(name, npyg_hdf5_kind_name((npyg_hdf5_kind)k))) return (npyg_hdf5_kind)k;
    return (npyg_hdf5_kind)0;
}

/* One record; false: protocol error. */
static bool handle_line(reader *r, char *line, char **f, int n)
{
    (void)line;
    long long code, warn;
    if (r->ended) return false;
    if (n == 3 && !strcmp(f[0], "E")) {
        if (!parse_int(f[1], 0, 200, &code) || !child_code((int)code)) return false;
        r->ended = true;
        r->end_code = (int)code;
        snprintf(r->end_msg, sizeof r->end_msg, "%s", f[2]);
        return true;
    }
    if (n != 8 || strcmp(f[0], "O")) return false;
    if (++r->records > r->max_records) return false;
    if (!parse_int(f[1], 0, 200, &code) || !child_code((int)code) || !parse_int(f[2], 0, 0xffff, &warn))
        return false;
    uint64_t shape[NPYG__H5_MAX_DIMS];
    uint32_t ndim = 0;
    if (strcmp(f[5], "-") != 0 && f[5][0]) {
        for (char *p = f[5]; *p;) {
            char *end;
            errno = 0;
            unsigned long long v = strtoull(p, &end, 10);
            if (errno || end == p || ndim == NPYG__H5_MAX_DIMS) return false;
            shape[ndim++] = v;
            if (*end == ',') end++;
            else if (*end) return false;
            p = end;
        }
    }
    npyg_hdf5_kind kind = kind_named(f[3]);
    if (!kind) return false;
    npyg_hdf5_object o = {f[6], kind, f[4], ndim, ndim ? shape : NULL, (int)code, (unsigned)warn, f[7]};
    if (code) npyg__fail(r->ctx, (int)code, 0, "%s: %s", f[6], f[7]);
    if (r->fn && !r->stopped && r->fn(r->user, &o)) r->stopped = true;
    return true;
}

static const char *signame(int sig)
{
    switch (sig) {
    case SIGSEGV: return "SIGSEGV";
    case SIGBUS: return "SIGBUS";
    case SIGABRT: return "SIGABRT";
    case SIGFPE: return "SIGFPE";
    case SIGILL: return "SIGILL";
    case SIGSYS: return "SIGSYS";
    case SIGXCPU: return "SIGXCPU";
    case SIGKILL: return "SIGKILL";
    case SIGXFSZ: return "SIGXFSZ";
    default: return "a signal";
    }
}

/* After a crash or a limit, that is the verdict, whatever was reported. */
static int override(npyg_ctx *ctx, int code, const char *fmt, ...) NPYG__PRINTF(3, 4);
static int override(npyg_ctx *ctx, int code, const char *fmt, ...)
{
    memset(&ctx->err, 0, sizeof ctx->err);
    va_list ap;
    va_start(ap, fmt);
    int rc = npyg__vfail(ctx, code, 0, fmt, ap);
    va_end(ap);
    return rc;
}

/* ---------------- the helper ---------------- */

#if !defined(NPYG_HDF5_LIBEXECDIR) || !defined(NPYG_HDF5_LIBEXEC_FROM_LIB) || !defined(NPYG_HDF5_LIBEXEC_FROM_BIN)
#error "parser/CMakeLists.txt sets where the helper is installed: NPYG_HDF5_LIBEXECDIR and its paths from LIBDIR and BINDIR"
#endif

/* Where the helper is: the path the caller set, else $NPYG_HDF5_HELPER,
   else next to the object that holds this code (the build tree), else
   where an install puts it relative to that object (a moved install: the
   library in LIBDIR, or a program it is linked into in BINDIR), else
   where it was installed. 0, or -1 (too long). */
static int find_helper(const npyg_ctx *ctx, char *out, size_t size)
{
    const char *set = ctx && ctx->h5_helper ? ctx->h5_helper : secure_getenv("NPYG_HDF5_HELPER");
    if (set && *set) return snprintf(out, size, "%s", set) < (int)size ? 0 : -1;
    char self[PATH_MAX] = "";
    Dl_info di;
    if (dladdr((void *)find_helper, &di) && di.dli_fname && di.dli_fname[0] == '/')
        snprintf(self, sizeof self, "%s", di.dli_fname);
    else {
        ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
        self[n > 0 ? n : 0] = '\0';
    }
    char *slash = strrchr(self, '/');
    static const char *const near[] = {"", "/" NPYG_HDF5_LIBEXEC_FROM_LIB "/npyguard",
                                       "/" NPYG_HDF5_LIBEXEC_FROM_BIN "/npyguard"};
    for (size_t i = 0; slash && i < sizeof near / sizeof near[0]; i++)
        if (snprintf(out, size, "%.*s%s/" NPYG__H5_HELPER_NAME, (int)(slash - self), self, near[i]) < (int)size &&
            access(out, X_OK) == 0)
            return 0;
    return snprintf(out, size, "%s", NPYG_HDF5_LIBEXECDIR "/npyguard/" NPYG__H5_HELPER_NAME) < (int)size ? 0 : -1;
}

/* Ends the context's helper. A fork's child holds a copy of its parent's
   context: it closes its copy of the socket and leaves the helper, which
   is the parent's to use and to end, running. */
static void end_helper(npyg_ctx *ctx)
{
    if (ctx->h5_pid <= 0) return;
    close(ctx->h5_sock);
    if (ctx->h5_owner == (int)getpid()) {
        kill(ctx->h5_pid, SIGKILL); /* its children die with it (their PDEATHSIG) */
        while (waitpid(ctx->h5_pid, NULL, 0) < 0 && errno == EINTR) {}
    }
    ctx->h5_pid = 0;
    ctx->h5_sock = -1;
    ctx->h5_owed = 0;
}

void npyg__h5_ctx_free(npyg_ctx *ctx)
{
    end_helper(ctx);
    if (ctx->h5_helper) npyg__xfree(ctx, ctx->h5_helper, strlen(ctx->h5_helper) + 1);
    ctx->h5_helper = NULL;
}

int npyg_hdf5_set_helper(npyg_ctx *ctx, const char *path)
{
    if (!ctx) return NPYG_EINVAL;
    npyg__h5_ctx_free(ctx);
    if (!path) return 0;
    size_t n = strlen(path) + 1;
    if (path[0] != '/' || n > PATH_MAX) return npyg__fail(ctx, NPYG_EINVAL, 0, "the HDF5 helper needs an absolute path");
    if (!(ctx->h5_helper = npyg__xalloc(ctx, n))) return npyg__nomem(ctx, 0);
    memcpy(ctx->h5_helper, path, n);
    return 0;
}

int npyg_hdf5_set_interrupt(npyg_ctx *ctx, int (*fn)(void *user), void *user)
{
    if (!ctx) return NPYG_EINVAL;
    ctx->h5_interrupt = fn;
    ctx->h5_interrupt_user = fn ? user : NULL;
    return 0;
}

/* How long one poll of a wait lasts: short when the caller asks to be
   interrupted, so that its answer comes within NPYG_HDF5_INTERRUPT_MS. */
static int wait_slice(const npyg_ctx *ctx, int64_t left)
{
    int64_t most = ctx->h5_interrupt ? NPYG_HDF5_INTERRUPT_MS : 1000;
    return left > most ? (int)most : (int)left;
}

static bool interrupted(const npyg_ctx *ctx)
{
    return ctx->h5_interrupt && ctx->h5_interrupt(ctx->h5_interrupt_user) != 0;
}

/* Waits for one message of exactly size bytes until deadline (ms);
   ECANCELED when the caller's interrupt says so. */
static int receive(const npyg_ctx *ctx, int sock, void *msg, size_t size, int64_t deadline)
{
    for (;;) {
        int64_t left = deadline - now_ms();
        if (left <= 0) return errno = ETIMEDOUT, -1;
        struct pollfd p = {sock, POLLIN, 0};
        int pr = poll(&p, 1, wait_slice(ctx, left));
        if (pr < 0 && errno != EINTR) return -1;
        if (pr <= 0 && interrupted(ctx)) return errno = ECANCELED, -1;
        if (pr <= 0) continue;
        ssize_t n = recv(sock, msg, size, MSG_TRUNC);
        if (n < 0 && errno == EINTR) continue;
        if (n == (ssize_t)size) return 0;
        return errno = n < 0 ? errno : EPROTO, -1;
    }
}

/* The helper reports each file's end in order. A file whose end record
   came (and, for a scan, whose pipe then closed) has its verdict: its end
   is owed, and read only before a later one, so that its child's exit
   (its address space torn down, then reaped) costs the caller nothing.
   Owed ends are dropped whatever their status. drain: the owed ends beyond
   keep; next_done: this file's, after every owed one. A helper that does
   not answer is ended; the next file starts a fresh one. */
static bool is_done(const npyg__h5_done *d) { return d->magic == NPYG__H5_MAGIC && d->type == NPYG__H5_DONE; }

static int drain(npyg_ctx *ctx, uint32_t keep, int64_t deadline)
{
    npyg__h5_done done;
    for (; ctx->h5_owed > keep; ctx->h5_owed--)
        if (receive(ctx, ctx->h5_sock, &done, sizeof done, deadline) != 0) return -1;
        else if (!is_done(&done) || done.error) return errno = EPROTO, -1;
    return 0;
}

static int next_done(npyg_ctx *ctx, npyg__h5_done *done, int64_t deadline)
{
    if (drain(ctx, 0, deadline) != 0) return -1;
    return receive(ctx, ctx->h5_sock, done, sizeof *done, deadline);
}

/* The helper runs in an empty environment; sanitizer builds keep only
   their runtime's options (tests). */
static char **helper_env(char **env, size_t max)
{
    size_t n = 0;
#if defined(NPYG__ASAN)
    static const char *const keep[] = {"ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS"};
    extern char **environ;
    for (char **e = environ; e && *e && n + 1 < max; e++)
        for (size_t i = 0; i < sizeof keep / sizeof keep[0]; i++)
            if (!strncmp(*e, keep[i], strlen(keep[i])) && (*e)[strlen(keep[i])] == '=') env[n++] = *e;
#else
    (void)max;
#endif
    env[n] = NULL;
    return env;
}

static int start_helper(npyg_ctx *ctx, const npyg_hdf5_limits *hl);

/* The context's helper, started if it has none or has only its parent
   process's (a fork's child starts its own). */
static int own_helper(npyg_ctx *ctx, const npyg_hdf5_limits *hl)
{
    if (ctx->h5_pid > 0 && ctx->h5_owner != (int)getpid()) end_helper(ctx);
    return ctx->h5_pid > 0 ? 0 : start_helper(ctx, hl);
}

static int start_helper(npyg_ctx *ctx, const npyg_hdf5_limits *hl)
{
    char path[PATH_MAX];
    if (find_helper(ctx, path, sizeof path) != 0)
        return npyg__fail(ctx, NPYG_EHDF5_UNAVAILABLE, 0, "the HDF5 helper's path is too long");
    if (access(path, X_OK) != 0)
        return npyg__fail(ctx, NPYG_EHDF5_UNAVAILABLE, 0, "the HDF5 helper %s cannot run: %s", path, strerror(errno));
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0)
        return npyg__fail(ctx, NPYG_EHDF5_SANDBOX, 0, "cannot make a socket pair: %s", strerror(errno));
    char pid[24], *env[4];
    snprintf(pid, sizeof pid, "%ld", (long)getpid());
    char *argv[] = {path, (char *)"zygote", pid, NULL};
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t at;
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    posix_spawn_file_actions_init(&fa);
    posix_spawnattr_init(&at);
    /* the socket to 3 first: the caller may have closed 0, 1 or 2 */
    posix_spawn_file_actions_adddup2(&fa, sv[1], NPYG__H5_SOCK_FD);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addclosefrom_np(&fa, NPYG__H5_SOCK_FD + 1);
    posix_spawnattr_setsigmask(&at, &none);
    posix_spawnattr_setsigdefault(&at, &all);
    posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    pid_t child;
    int rc = posix_spawn(&child, path, &fa, &at, argv, helper_env(env, 4));
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&at);
    close(sv[1]);
    if (rc != 0) {
        close(sv[0]);
        return npyg__fail(ctx, NPYG_EHDF5_SANDBOX, 0, "cannot start the HDF5 helper %s: %s", path, strerror(rc));
    }
    ctx->h5_pid = child;
    ctx->h5_owner = (int)getpid();
    ctx->h5_sock = sv[0];
    npyg__h5_hello h;
    if (receive(ctx, sv[0], &h, sizeof h, now_ms() + (int64_t)hl->child_wall_seconds * 1000) != 0 ||
        h.magic != NPYG__H5_MAGIC || h.type != NPYG__H5_HELLO) {
        end_helper(ctx);
        return npyg__fail(ctx, NPYG_EHDF5_SANDBOX, 0, "the HDF5 helper %s did not start", path);
    }
    h.why[sizeof h.why - 1] = '\0';
    if (h.error == ENOENT) { /* the helper's word for "libhdf5 does not load" */
        end_helper(ctx);
        return npyg__fail(ctx, NPYG_EHDF5_UNAVAILABLE, 0, "libhdf5 is not usable here: %s", h.why);
    }
    if (h.error || !(h.layers & NPYG__H5_L_SECCOMP)) {
        end_helper(ctx);
        return npyg__fail(ctx, NPYG_EHDF5_SANDBOX, 0, "the HDF5 sandbox cannot run here, refusing to scan: %s (%s)",
                          h.why, strerror(h.error ? h.error : ENOSYS));
    }
    ctx->h5_layers = h.layers;
    ctx->h5_landlock_abi = h.landlock_abi;
    return 0;
}

/* Hands the helper the input (read-only) and the pipe's write end. */
static int send_scan(npyg_ctx *ctx, const npyg__h5_request *req, int in, int out)
{
    int fds[2] = {in, out};
    return npyg__h5_send_fds(ctx->h5_sock, req, sizeof *req, fds);
}

int npyg_hdf5_sandbox_info(npyg_ctx *ctx, char *out, size_t size)
{
    if (!ctx || !out || !size) return NPYG_EINVAL;
    npyg__ctx_reset(ctx);
    npyg_hdf5_limits hl;
    npyg_hdf5_limits_default(&hl);
    int rc = own_helper(ctx, &hl);
    if (rc) return rc;
    char landlock[32] = "no landlock";
    if (ctx->h5_layers & NPYG__H5_L_LANDLOCK) snprintf(landlock, sizeof landlock, "landlock abi %u", ctx->h5_landlock_abi);
    snprintf(out, size, "seccomp allow-list, %s, %s, %s", landlock,
             ctx->h5_layers & NPYG__H5_L_USERNS ? "user+net namespaces" : "no namespaces",
             ctx->h5_layers & NPYG__H5_L_NONET ? "no libcurl or libcrypto" : "libcurl and libcrypto loaded");
    return 0;
}

/* ---------------- the pipe ---------------- */

/* The caller's interrupt ended the wait: the helper and the file's child
   are killed now (SIGKILL ends a stopped one too), not asked. */
static int stop_interrupted(npyg_ctx *ctx, const npyg_hdf5_sink *sink)
{
    end_helper(ctx);
    int rc = npyg__fail(ctx, NPYG_EIO, 0, "interrupted by the caller");
    if (sink) sink->end(sink->user, rc);
    return rc;
}

/* The child's records through one fixed buffer; values are read past it,
   straight into the sink's buffers. */
typedef struct {
    int fd;
    char *buf;              /* BUF_SIZE bytes */
    size_t pos, have;
    int64_t deadline;
    bool timeout, poll_failed;
    int read_errno;         /* our own read failed: not the file's doing */
    bool eof;               /* the child closed its end */
    const npyg_ctx *ctx;    /* whose interrupt is asked while waiting */
    bool interrupted;       /* it said stop */
} pipe_in;

/* Up to size more bytes into dst; false at the end of the input, at the
   deadline or on an error. The pipe does not block: what is there is
   read at once, and poll waits only when it is empty. */
static bool pipe_fill(pipe_in *p, void *dst, size_t size, size_t *got)
{
    for (;;) {
        int64_t left = p->deadline - now_ms();
        if (left <= 0) {
            p->timeout = true;
            return false;
        }
        ssize_t n = read(p->fd, dst, size);
        if (n > 0) {
            *got = (size_t)n;
            return true;
        }
        if (n == 0) {
            p->eof = true;
            return false;
        }
        if (errno == EINTR) continue;
        if (errno != EAGAIN) {
            p->read_errno = errno;
            return false;
        }
        struct pollfd q = {p->fd, POLLIN, 0};
        int pr = poll(&q, 1, wait_slice(p->ctx, left));
        if (pr < 0 && errno != EINTR) {
            p->poll_failed = true;
            return false;
        }
        if (pr <= 0 && interrupted(p->ctx)) {
            p->interrupted = true;
            return false;
        }
    }
}

/* The next line, NUL-terminated without its newline; NULL at the end of
   the input, or with *too_long for a line past NPYG__H5_LINE bytes. */
static char *pipe_line(pipe_in *p, bool *too_long)
{
    for (;;) {
        char *start = p->buf + p->pos, *nl = memchr(start, '\n', p->have - p->pos);
        if (nl) {
            *nl = '\0';
            p->pos = (size_t)(nl + 1 - p->buf);
            if ((size_t)(nl - start) > NPYG__H5_LINE) return *too_long = true, NULL;
            return start;
        }
        if (p->have - p->pos > NPYG__H5_LINE) return *too_long = true, NULL;
        memmove(p->buf, start, p->have - p->pos);
        p->have -= p->pos;
        p->pos = 0;
        size_t got;
        if (!pipe_fill(p, p->buf + p->have, BUF_SIZE - p->have, &got)) return NULL;
        p->have += got;
    }
}

/* Exactly n bytes into dst: what the buffer holds, then from the pipe. */
static bool pipe_bytes(pipe_in *p, void *dst, uint64_t n)
{
    if (n == 0) return true; /* dst may be NULL */
    size_t take = p->have - p->pos < n ? p->have - p->pos : (size_t)n;
    memcpy(dst, p->buf + p->pos, take);
    p->pos += take;
    char *d = (char *)dst + take;
    n -= take;
    while (n) {
        size_t got;
        if (!pipe_fill(p, d, n > (1u << 30) ? (1u << 30) : (size_t)n, &got)) return false;
        d += got;
        n -= got;
    }
    return true;
}

/* ---------------- the load records ---------------- */

/* \xNN back to its byte, in place; false for anything the child's
   escaping never writes. */
static bool unescape(char *s)
{
    char *o = s;
    for (const char *p = s; *p; p++) {
        unsigned char c = (unsigned char)*p;
        if (c < 0x20 || c >= 0x7f) return false;
        if (c != '\\') {
            *o++ = (char)c;
            continue;
        }
        unsigned v = 0;
        if (p[1] != 'x') return false;
        for (int i = 2; i < 4; i++) {
            char h = p[i];
            if (h >= '0' && h <= '9') v = v * 16 + (unsigned)(h - '0');
            else if (h >= 'a' && h <= 'f') v = v * 16 + (unsigned)(h - 'a' + 10);
            else return false;
        }
        if (v == 0 || (v >= 0x20 && v < 0x7f && v != '\\')) return false;
        *o++ = (char)v;
        p += 3;
    }
    *o = '\0';
    return true;
}

static bool one_of(const char *s, const char *a, const char *b, const char *c, const char *d)
{
    return !strcmp(s, a) || !strcmp(s, b) || (c && !strcmp(s, c)) || (d && !strcmp(s, d));
}

enum { LINE_OK, LINE_BAD, LINE_STOP, LINE_END };

/* Why a load record or value broke the protocol, with its path. */
static int bad(reader *r, const char *fmt, ...) NPYG__PRINTF(2, 3);
static int bad(reader *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->why, sizeof r->why, fmt, ap);
    va_end(ap);
    return LINE_BAD;
}

/* One value of item: its .npy header validated by the context's parser
   and limits, then its payload into the sink's buffer of exactly the
   validated size. */
static int read_value(reader *r, pipe_in *p, const npyg_hdf5_item *it, unsigned i)
{
    unsigned char pre[12];
    if (!pipe_bytes(p, pre, 10)) return LINE_END;
    if (memcmp(pre, "\x93NUMPY", 6) || (pre[6] != 1 && pre[6] != 2) || pre[7])
        return bad(r, "a value without a .npy 1.0 or 2.0 preamble");
    size_t plen = pre[6] == 1 ? 10 : 12;
    if (plen == 12 && !pipe_bytes(p, pre + 10, 2)) return LINE_END;
    uint64_t hl = pre[8] | (uint64_t)pre[9] << 8;
    if (plen == 12) hl |= (uint64_t)pre[10] << 16 | (uint64_t)pre[11] << 24;
    if (hl > r->hcap - plen) {
        r->limit = NPYG_ELIMIT_HEADER;
        return bad(r, "a .npy header of %llu bytes, over max_header_bytes (%llu)", (unsigned long long)hl,
                   (unsigned long long)r->ctx->limits.max_header_bytes);
    }
    memcpy(r->hbuf, pre, plen);
    if (!pipe_bytes(p, r->hbuf + plen, hl)) return LINE_END;
    int prc = npyg_parse_header(r->ctx, r->hbuf, plen + (size_t)hl);
    if (prc) {
        if (prc >= NPYG_ELIMIT_HEADER && prc <= NPYG_ELIMIT_PAYLOAD) r->limit = prc;
        return bad(r, "npyguard refuses its .npy header: %s", npyg_last_error(r->ctx)->message);
    }
    const npyg_info *in = npyg_get_info(r->ctx);
    const npyg_dtype *dt = in->dtype;
    bool two = it->nvalues == 2;
    if (in->fortran_order) return bad(r, "a Fortran-order value");
    if (it->null_space && (in->ndim != 1 || in->shape[0] != 0))
        return bad(r, "a null dataspace sent with elements");
    if (two && i == 0 && (dt->kind != NPYG_KIND_UINT || dt->itemsize != 8 || dt->byteorder != '<'))
        return bad(r, "lengths that are not '<u8'");
    if (two && i == 1 && (in->ndim != 1 || in->count != r->sum))
        return bad(r, "%llu elements of data where the lengths sum to %llu", (unsigned long long)in->count,
                   (unsigned long long)r->sum);
    if (two && i == 1 && strcmp(it->form, "vlen") && (dt->kind != NPYG_KIND_UINT || dt->itemsize != 1))
        return bad(r, "string data that is not '|u1'");
    uint64_t end = 0;
    if (r->at_file && (!npyg__add_u64(r->at, in->payload_bytes, &end) || end > r->src->size))
        return bad(r, "a value at bytes %llu..%llu of a file of %llu", (unsigned long long)r->at,
                   (unsigned long long)r->at + in->payload_bytes, (unsigned long long)r->src->size);
    /* what the caller will hold, counted before it is asked to hold it:
       a child may name the same bytes of the file, or send the same
       value, for any number of records */
    if (!npyg__add_u64(r->loaded, in->payload_bytes, &r->loaded)) r->loaded = UINT64_MAX;
    if (r->loaded > r->max_load) {
        r->limit = NPYG_ELIMIT_LOAD;
        return bad(r, "the values sent reach %llu%s bytes, more than %llu, this file's budget (max_load_bytes "
                   "+ %u per byte of the file)", (unsigned long long)r->loaded,
                   r->loaded == UINT64_MAX ? " or more" : "", (unsigned long long)r->max_load,
                   NPYG_LOAD_BYTES_PER_BYTE);
    }
    void *dst = NULL;
    if (r->sink->value(r->sink->user, i, in, &dst)) return LINE_STOP;
    if (in->payload_bytes && !dst) return LINE_STOP;
    if (r->at_file) {
        long long got = npyg__in_read_at(r->src, r->at, dst, (size_t)in->payload_bytes);
        if (got < 0 || (uint64_t)got != in->payload_bytes)
            return bad(r, "a value the file no longer holds at bytes %llu..%llu", (unsigned long long)r->at,
                       (unsigned long long)end);
    } else if (!pipe_bytes(p, dst, in->payload_bytes)) {
        return LINE_END;
    }
    if (two && i == 0) {
        r->sum = 0;
        const unsigned char *b = dst;
        for (uint64_t k = 0; k < in->count; k++) {
            uint64_t v = 0;
            for (int j = 7; j >= 0; j--) v = v << 8 | b[8 * k + (uint64_t)j];
            if (v > UINT64_MAX - r->sum) return bad(r, "lengths whose sum overflows");
            r->sum += v;
        }
    }
    return LINE_OK;
}

/* A G, L, D or A record (h5internal.h) and its values. */
static int load_line(reader *r, pipe_in *p, char **f, int n)
{
    char tag = f[0][0];
    int want = tag == 'G' ? 2 : tag == 'L' ? 3 : tag == 'D' ? 5 : 6;
    if (!r->sink || f[0][1] || n != want) return LINE_BAD;
    if (++r->records > r->max_records) return LINE_BAD;
    for (int i = 1; i < n; i++)
        if (!unescape(f[i])) return LINE_BAD;
    snprintf(r->where, sizeof r->where, "%s%s%s", f[1], tag == 'A' ? "@" : "", tag == 'A' ? f[2] : "");
    if (f[1][0] != '/') return bad(r, "not an absolute path");
    npyg_hdf5_item it = {f[1],
                         tag == 'G'   ? NPYG_HDF5_GROUP
                         : tag == 'L' ? NPYG_HDF5_LINK
                         : tag == 'D' ? NPYG_HDF5_DATASET
                                      : NPYG_HDF5_ATTRIBUTE,
                         NULL, NULL, NULL, NULL, 0, 0};
    if (tag == 'L') it.target = f[2];
    if (tag == 'D' || tag == 'A') {
        char **v = f + (tag == 'A' ? 3 : 2);
        if (tag == 'A') it.name = f[2];
        r->at_file = tag == 'D' && !strcmp(v[0], "array") && !strncmp(v[2], "at:", 3);
        long long at = 0;
        if (r->at_file && !parse_int(v[2] + 3, 0, INT64_MAX, &at))
            return bad(r, "a value record with an offset that is not one");
        r->at = (uint64_t)at;
        if (!one_of(v[0], "array", "str", "ref", "vlen") || !one_of(v[1], "-", "ascii", "utf-8", NULL) ||
            (!r->at_file && !one_of(v[2], "simple", "null", NULL, NULL)))
            return bad(r, "a value record with unknown fields");
        it.form = v[0];
        it.cset = strcmp(v[1], "-") ? v[1] : NULL;
        it.null_space = !strcmp(v[2], "null");
        it.nvalues = it.null_space || !strcmp(v[0], "array") ? 1 : 2;
    }
    if (r->sink->object(r->sink->user, &it)) return LINE_STOP;
    for (unsigned i = 0; i < it.nvalues; i++) {
        int rc = read_value(r, p, &it, i);
        if (rc != LINE_OK) return rc;
    }
    r->where[0] = '\0';
    return LINE_OK;
}

/* ---------------- one scan or load ---------------- */

static int run(npyg_ctx *ctx, const npyg_hdf5_limits *limits, npyg_hdf5_object_fn fn, void *user,
               const npyg_hdf5_sink *sink)
{
    if (!ctx) return NPYG_EINVAL;
    npyg__ctx_reset(ctx);
    npyg_hdf5_limits hl;
    hl = limits ? *limits : ctx->hdf5_limits;
    if (!limits_valid(&hl)) return npyg__fail(ctx, NPYG_EINVAL, 0, "invalid HDF5 limits");
    /* libhdf5 reads the file through a mapping of it, in the child: a
       regular file's descriptor, and nothing else, can be handed over */
    npyg__input src;
    int rc = npyg__input_begin(ctx, &src, NPYG__IN_RANDOM, NPYG_OFFSET_FILE,
                               "an HDF5 file needs a regular file (random access)");
    if (rc) return rc;
    if (src.kind != NPYG__IN_FILE)
        return npyg__fail(ctx, NPYG_ENOTREG, 0, "an HDF5 file is read from a regular file's descriptor");
    int fd = src.fd;
    /* The MAT header is npyguard's own to check, before libhdf5 sees it. */
    rc = npyg_probe_input(ctx);
    if (rc) return rc;
    const npyg_probe_info *pi = npyg_get_probe_info(ctx);
    if (pi->format != NPYG_FORMAT_HDF5 && pi->format != NPYG_FORMAT_MAT73)
        return npyg__fail(ctx, NPYG_EHDF5_NOTHDF5, 0,
                          "no HDF5 superblock signature at offset 0, 512, 1024, ...");
    if (src.base != 0)
        return npyg__fail(ctx, NPYG_EINVAL, 0, "an HDF5 file is scanned from its first byte");
    if ((rc = own_helper(ctx, &hl)) != 0) return rc;

    /* a load also holds one .npy header at a time */
    size_t hcap = 0;
    if (sink) hcap = (size_t)(ctx->limits.max_header_bytes < NPYG__H5_NPY_HEADER ? ctx->limits.max_header_bytes
                                                                                  : NPYG__H5_NPY_HEADER) + 12;
    char *buf = npyg__xalloc(ctx, BUF_SIZE + hcap);
    if (!buf) return npyg__nomem(ctx, 0);
    int pfd[2];
    if (pipe2(pfd, O_CLOEXEC) != 0) {
        npyg__xfree(ctx, buf, BUF_SIZE + hcap);
        return npyg__fail(ctx, NPYG_EHDF5_SANDBOX, 0, "cannot make a pipe: %s", strerror(errno));
    }
    /* a load's values flow through it: a larger pipe means fewer hand-overs
       between the child and this process (best effort) */
    if (sink) (void)fcntl(pfd[0], F_SETPIPE_SZ, 1 << 20);
    if (fcntl(pfd[0], F_SETFL, O_NONBLOCK) != 0) {
        close(pfd[0]);
        close(pfd[1]);
        npyg__xfree(ctx, buf, BUF_SIZE + hcap);
        return npyg__fail(ctx, NPYG_EHDF5_SANDBOX, 0, "cannot make a pipe: %s", strerror(errno));
    }
    /* The child gets the input read-only even when the caller's
       descriptor could write: a fresh open file description, if /proc
       gives one (the child's filter forbids writing it either way). */
    int in = fd, acc = fcntl(fd, F_GETFL);
    if (acc >= 0 && (acc & O_ACCMODE) != O_RDONLY) {
        char name[64];
        snprintf(name, sizeof name, "/proc/self/fd/%d", fd);
        int ro = open(name, O_RDONLY | O_CLOEXEC);
        struct stat st, rst;
        if (ro >= 0 && fstat(fd, &st) == 0 && fstat(ro, &rst) == 0 && rst.st_ino == st.st_ino &&
            rst.st_dev == st.st_dev)
            in = ro;
        else if (ro >= 0) close(ro);
    }
    /* the limits as set bound the helper; this file gets its share */
    uint32_t cpu_cap = hl.child_cpu_seconds, wall_cap = hl.child_wall_seconds;
    hl.child_cpu_seconds = share(cpu_cap, src.size, 1);
    hl.child_wall_seconds = share(wall_cap, src.size, 5);
    npyg__h5_request req = {NPYG__H5_MAGIC, NPYG__H5_SCAN, hl,
                            {hl.max_objects, hl.max_nesting, ctx->limits.max_payload_bytes,
                             ctx->profile == NPYG_PROFILE_STRICT, hl.max_paths, hl.max_ref_depth, sink != NULL, false, hl.max_load_bytes},
                            src.size};
    int sent = send_scan(ctx, &req, in, pfd[1]);
    if (sent != 0) {
        /* a helper that died since the last file (its parent thread
           ended, or it was killed): one fresh start */
        end_helper(ctx);
        sent = start_helper(ctx, &hl) == 0 ? send_scan(ctx, &req, in, pfd[1]) : -2;
    }
    if (in != fd) close(in);
    close(pfd[1]);
    if (sent != 0) {
        close(pfd[0]);
        npyg__xfree(ctx, buf, BUF_SIZE + hcap);
        if (sent == -2) return ctx->err.code;
        int e = errno;
        end_helper(ctx);
        return npyg__fail(ctx, NPYG_EHDF5_SANDBOX, 0, "cannot hand the file to the HDF5 helper: %s", strerror(e));
    }

    /* every object at most: its link, its attributes' records, plus the
       hazards found after the walk; a generous multiple keeps it bounded.
       A load adds one record per path and attribute along every path. */
    uint64_t max_records = (uint64_t)hl.max_objects * 4 + 64;
    if (sink) max_records += ((uint64_t)hl.max_objects + hl.max_paths) * 8;
    reader r = {ctx, fn, user, 0, max_records, false, false, 0, "", sink, buf + BUF_SIZE, hcap, 0, "", "", 0,
                &src, false, 0, 0, npyg__h5_load_budget(hl.max_load_bytes, src.size)};
    pipe_in p = {pfd[0], buf, 0, 0, now_ms() + (int64_t)hl.child_wall_seconds * 1000, false, false, 0, false, ctx, false};
    bool protocol = false, too_long = false;
    char *line;
    while (!protocol && !(r.stopped && sink) && (line = pipe_line(&p, &too_long))) {
        char *f[8];
        int n = split(line, f, 8);
        int lr = n >= 1 && f[0][0] && strchr("GLDA", f[0][0]) && !r.ended ? load_line(&r, &p, f, n)
                 : handle_line(&r, line, f, n)                               ? LINE_OK
                                                                             : LINE_BAD;
        if (lr == LINE_BAD) protocol = true;
        if (lr == LINE_STOP) r.stopped = true; /* a sink's stop ends the child */
        if (lr == LINE_END) break;
    }
    protocol = protocol || too_long || p.poll_failed;
    bool timeout = p.timeout;
    int read_errno = p.read_errno;
    close(pfd[0]);
    npyg__xfree(ctx, buf, BUF_SIZE + hcap);
    if (p.interrupted) return stop_interrupted(ctx, sink);

    /* The child's end, from the helper. A child that closed its pipe and
       kept running meets the same deadline; a helper that does not answer
       is ended. */
    npyg__h5_request kill_msg = {NPYG__H5_MAGIC, NPYG__H5_KILL, hl, req.params, 0};
    bool killed = timeout || protocol || read_errno || (r.stopped && sink);
    if (killed) send(ctx->h5_sock, &kill_msg, sizeof kill_msg, MSG_NOSIGNAL);
    npyg__h5_done done = {NPYG__H5_MAGIC, NPYG__H5_DONE, 0, 0};
    int got = 0;
    if (!killed && r.ended && (sink || p.eof)) {
        ctx->h5_owed++;
        if (drain(ctx, 1, now_ms() + 5000) != 0) end_helper(ctx);
    } else {
        got = next_done(ctx, &done, killed ? now_ms() + 5000 : p.deadline);
    }
    if (got != 0 && errno == ECANCELED) return stop_interrupted(ctx, sink);
    if (got != 0 && !killed && errno == ETIMEDOUT) {
        timeout = killed = true;
        send(ctx->h5_sock, &kill_msg, sizeof kill_msg, MSG_NOSIGNAL);
        got = next_done(ctx, &done, now_ms() + 5000);
        if (got != 0 && errno == ECANCELED) return stop_interrupted(ctx, sink);
    }
    if (got != 0 || !is_done(&done) || done.error) {
        int e = got != 0 ? errno : done.error ? done.error : EPROTO;
        end_helper(ctx);
        if (!timeout)
            return override(ctx, NPYG_EHDF5_SANDBOX, "the HDF5 helper failed: %s", strerror(e));
        memset(&done, 0, sizeof done);
        done.status = SIGKILL; /* as WIFSIGNALED: killed at the deadline */
    }
    int status = done.status;

    /* a load that ended inside a value says whose */
    char during[NPYG__H5_LINE + 32] = "";
    if (r.where[0]) snprintf(during, sizeof during, " (while sending %s)", r.where);
    if (read_errno)
        rc = override(ctx, NPYG_EIO, "cannot read the HDF5 child's records (errno %d)", read_errno);
    else if (timeout)
        rc = override(ctx, NPYG_EHDF5_TIMEOUT,
                      "the HDF5 library ran longer than %u s on this file%s, the share of hdf5_wall_seconds (%u) "
                      "a file of %llu bytes gets: raise hdf5_wall_seconds (--hdf5-time)",
                      hl.child_wall_seconds, during, wall_cap, (unsigned long long)src.size);
    else if (WIFSIGNALED(status) && WTERMSIG(status) == SIGXCPU)
        rc = override(ctx, NPYG_EHDF5_TIMEOUT,
                      "the HDF5 library used more than %u s of CPU on this file%s, the share of hdf5_cpu_seconds "
                      "(%u) a file of %llu bytes gets: raise hdf5_cpu_seconds (--hdf5-cpu)",
                      hl.child_cpu_seconds, during, cpu_cap, (unsigned long long)src.size);
    else if (WIFSIGNALED(status) && WTERMSIG(status) == SIGSYS)
        rc = override(ctx, NPYG_EHDF5_CRASH,
                      "the HDF5 library tried a forbidden system call (opening another file?): signal %d (SIGSYS)",
                      SIGSYS);
    else if (WIFSIGNALED(status) && !protocol && !(r.stopped && sink))
        rc = override(ctx, NPYG_EHDF5_CRASH, "the HDF5 library failed on this file: signal %d (%s)%s",
                      WTERMSIG(status), signame(WTERMSIG(status)), during);
    else if (protocol && r.limit) /* a value past the context's limits: the limit's code */
        rc = override(ctx, r.limit, "%s: %s", r.where, r.why);
    else if (protocol && r.why[0])
        rc = override(ctx, NPYG_EHDF5_PROTOCOL, "%s: the HDF5 child broke the record protocol: %s", r.where, r.why);
    else if (protocol)
        rc = override(ctx, NPYG_EHDF5_PROTOCOL, "the HDF5 child broke the record protocol%s", during);
    else if (r.stopped && sink)
        rc = override(ctx, NPYG_EIO, "stopped by the caller%s", during);
    else if (!r.ended)
        rc = override(ctx, NPYG_EHDF5_CRASH,
                      "the HDF5 library failed on this file: the child exited with status %d before the end%s",
                      WIFEXITED(status) ? WEXITSTATUS(status) : -1, during);
    else if (r.end_code)
        rc = override(ctx, r.end_code, "%s", r.end_msg);
    else
        rc = ctx->err.code;
    if (!rc && r.stopped) rc = npyg__fail(ctx, NPYG_EIO, 0, "stopped by the caller");
    if (sink) sink->end(sink->user, rc);
    return rc;
}

int npyg_hdf5_scan(npyg_ctx *ctx, const npyg_hdf5_limits *limits, npyg_hdf5_object_fn fn, void *user)
{
    return run(ctx, limits, fn, user, NULL);
}

int npyg_hdf5_load(npyg_ctx *ctx, const npyg_hdf5_limits *limits, const npyg_hdf5_sink *sink)
{
    if (!ctx || !sink || !sink->object || !sink->value || !sink->end) return NPYG_EINVAL;
    return run(ctx, limits, NULL, NULL, sink);
}

int npyg_hdf5_scan_fd(npyg_ctx *ctx, int fd, const npyg_hdf5_limits *limits,
                      npyg_hdf5_object_fn fn, void *user)
{
    if (!ctx) return NPYG_EINVAL;
    npyg_set_input_fd(ctx, fd);
    return npyg_hdf5_scan(ctx, limits, fn, user);
}

int npyg_hdf5_load_fd(npyg_ctx *ctx, int fd, const npyg_hdf5_limits *limits, const npyg_hdf5_sink *sink)
{
    if (!ctx) return NPYG_EINVAL;
    npyg_set_input_fd(ctx, fd);
    return npyg_hdf5_load(ctx, limits, sink);
}

int npyg_hdf5_available(void)
{
    char path[PATH_MAX];
    return find_helper(NULL, path, sizeof path) == 0 && access(path, X_OK) == 0;
}
