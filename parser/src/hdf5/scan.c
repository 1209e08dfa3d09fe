/* The parent side of the HDF5 scan: fork the child, read its records
 * through one fixed buffer, and turn the way it ended into a verdict.
 *
 * The parent allocates one buffer of 2 * NPYG__H5_LINE bytes through the
 * context's allocator and nothing else, whatever the file or the child
 * does: a line longer than NPYG__H5_LINE, more records than the limits
 * allow, or garbage is a protocol error (NPYG_EHDF5_SANDBOX), and the
 * child is killed.
 */
#define _GNU_SOURCE
#include "h5internal.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

typedef struct {
    npyg_ctx *ctx;
    npyg_hdf5_object_fn fn;
    void *user;
    uint64_t records;
    uint64_t max_records;
    bool ended;
    bool stopped;     /* the callback asked to stop */
    int end_code;
    char end_msg[NPYG__H5_MSG_MAX + 8];
} reader;

/* One record; false: protocol error. */
static bool handle_line(reader *r, char *line)
{
    char *f[8];
    int n = split(line, f, 8);
    long long code, warn;
    if (r->ended) return false;
    if (n == 3 && !strcmp(f[0], "E")) {
        if (!parse_int(f[1], 0, NPYG_STATUS_END_ + 200, &code)) return false;
        r->ended = true;
        r->end_code = (int)code;
        snprintf(r->end_msg, sizeof r->end_msg, "%s", f[2]);
        return true;
    }
    if (n != 8 || strcmp(f[0], "O")) return false;
    if (++r->records > r->max_records) return false;
    if (!parse_int(f[1], 0, 200, &code) || !parse_int(f[2], 0, 0xffff, &warn)) return false;
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
    npyg_hdf5_object o = {f[6], f[3], f[4], ndim, ndim ? shape : NULL, (int)code, (unsigned)warn, f[7]};
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

int npyg_hdf5_scan_fd(npyg_ctx *ctx, int fd, const npyg_hdf5_limits *limits,
                      npyg_hdf5_object_fn fn, void *user)
{
    if (!ctx) return NPYG_EINVAL;
    npyg__ctx_reset(ctx);
    npyg_hdf5_limits hl;
    if (limits) hl = *limits;
    else npyg_hdf5_limits_default(&hl);
    if (!limits_valid(&hl)) return npyg__fail(ctx, NPYG_EINVAL, 0, "invalid HDF5 limits");
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) return npyg__fail(ctx, NPYG_EIO, 0, "cannot stat the file descriptor");
    if (!S_ISREG(st.st_mode))
        return npyg__fail(ctx, NPYG_ENOTREG, 0, "an HDF5 file needs a regular file (random access)");
    /* The MAT header is npyguard's own to check, before libhdf5 sees it. */
    npyg_probe_info pi;
    int prc = npyg_probe_fd(ctx, fd, &pi);
    if (prc) return prc;
    if (pi.format != NPYG_FORMAT_HDF5 && pi.format != NPYG_FORMAT_MAT73)
        return npyg__fail(ctx, NPYG_EHDF5_NOTHDF5, 0,
                          "no HDF5 superblock signature at offset 0, 512, 1024, ...");
    if (lseek(fd, 0, SEEK_CUR) != 0)
        return npyg__fail(ctx, NPYG_EINVAL, 0, "an HDF5 file is scanned from its first byte");

    /* Mapped in this process, so that every child starts with it. */
    const char *why;
    if (npyg__h5_load(&why) != 0)
        return npyg__fail(ctx, NPYG_EHDF5_UNAVAILABLE, 0, "libhdf5 is not usable here: %s", why);

    char *buf = npyg__xalloc(ctx, BUF_SIZE);
    if (!buf) return npyg__nomem(ctx, 0);
    int pfd[2];
    if (pipe(pfd) != 0) {
        npyg__xfree(ctx, buf, BUF_SIZE);
        return npyg__fail(ctx, NPYG_EHDF5_SANDBOX, 0, "cannot make a pipe: %s", strerror(errno));
    }
    npyg__h5_params params = {hl.max_objects, hl.max_nesting, ctx->limits.max_payload_bytes,
                              ctx->profile == NPYG_PROFILE_STRICT, hl.max_paths, hl.max_ref_depth};
    pid_t pid = fork();
    if (pid == 0) {
        close(pfd[0]);
        npyg__h5_child(fd, pfd[1], &hl, &params);
    }
    close(pfd[1]);
    if (pid < 0) {
        close(pfd[0]);
        npyg__xfree(ctx, buf, BUF_SIZE);
        return npyg__fail(ctx, NPYG_EHDF5_SANDBOX, 0, "cannot fork: %s", strerror(errno));
    }

    /* every object at most: its link, its attributes' records, plus the
       hazards found after the walk; a generous multiple keeps it bounded */
    reader r = {ctx, fn, user, 0, (uint64_t)hl.max_objects * 4 + 64, false, false, 0, ""};
    int64_t deadline = now_ms() + (int64_t)hl.child_wall_seconds * 1000;
    size_t have = 0;
    bool protocol = false, timeout = false;
    int read_errno = 0; /* our own read of the pipe failed: not the file's doing */
    for (;;) {
        int64_t left = deadline - now_ms();
        if (left <= 0) {
            timeout = true;
            break;
        }
        struct pollfd p = {pfd[0], POLLIN, 0};
        int pr = poll(&p, 1, left > 1000 ? 1000 : (int)left);
        if (pr < 0 && errno == EINTR) continue;
        if (pr < 0) {
            protocol = true;
            break;
        }
        if (pr == 0) continue;
        ssize_t got = read(pfd[0], buf + have, BUF_SIZE - have - 1);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) read_errno = errno;
        if (got <= 0) break;
        have += (size_t)got;
        buf[have] = '\0';
        char *start = buf, *nl;
        while ((nl = memchr(start, '\n', have - (size_t)(start - buf)))) {
            *nl = '\0';
            if ((size_t)(nl - start) > NPYG__H5_LINE || !handle_line(&r, start)) {
                protocol = true;
                break;
            }
            start = nl + 1;
        }
        if (protocol) break;
        have -= (size_t)(start - buf);
        memmove(buf, start, have);
        if (have > NPYG__H5_LINE) {
            protocol = true;
            break;
        }
    }
    close(pfd[0]);
    if (timeout || protocol || read_errno) kill(pid, SIGKILL);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    npyg__xfree(ctx, buf, BUF_SIZE);

    int rc;
    if (read_errno)
        rc = override(ctx, NPYG_EIO, "cannot read the HDF5 child's records (errno %d)", read_errno);
    else if (timeout)
        rc = override(ctx, NPYG_EHDF5_TIMEOUT, "the HDF5 library ran longer than %u s on this file",
                      hl.child_wall_seconds);
    else if (WIFSIGNALED(status) && WTERMSIG(status) == SIGXCPU)
        rc = override(ctx, NPYG_EHDF5_TIMEOUT, "the HDF5 library used more than %u s of CPU on this file",
                      hl.child_cpu_seconds);
    else if (WIFSIGNALED(status) && WTERMSIG(status) == SIGSYS)
        rc = override(ctx, NPYG_EHDF5_CRASH,
                      "the HDF5 library tried a forbidden system call (opening another file?): signal %d (SIGSYS)",
                      SIGSYS);
    else if (WIFSIGNALED(status) && !protocol)
        rc = override(ctx, NPYG_EHDF5_CRASH, "the HDF5 library failed on this file: signal %d (%s)",
                      WTERMSIG(status), signame(WTERMSIG(status)));
    else if (protocol)
        rc = override(ctx, NPYG_EHDF5_SANDBOX, "the HDF5 child broke the record protocol");
    else if (!r.ended)
        rc = override(ctx, NPYG_EHDF5_CRASH,
                      "the HDF5 library failed on this file: the child exited with status %d before the end",
                      WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    else if (r.end_code)
        rc = override(ctx, r.end_code, "%s", r.end_msg);
    else
        rc = ctx->err.code;
    if (!rc && r.stopped) rc = npyg__fail(ctx, NPYG_EIO, 0, "stopped by the caller");
    return rc;
}

int npyg_hdf5_available(void)
{
    const char *why;
    return npyg__h5_load(&why) == 0;
}
