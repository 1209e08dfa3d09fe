/* SPDX-License-Identifier: BSD-3-Clause */
/* The parent side of the HDF5 scan: one file's scan or load. The
 * context's helper (helperctl.c, helper.c) forks one caged child per file;
 * this hands it the input, reads the child's records (records.c) through
 * one fixed buffer, and turns the way the child ended into a verdict.
 *
 * The parent allocates one buffer of 2 * NPYG__H5_LINE bytes through the
 * context's allocator (and the helper's path, when the caller sets one)
 * and, for a load, one more for a .npy preamble and header (at most
 * 64 KiB + 12 bytes), and nothing else, whatever the file or the child
 * does. A child that breaks the record protocol is the file's verdict
 * (NPYG_EHDF5_PROTOCOL), and the child is killed. The values' memory is
 * the sink's, never the context's.
 */
#define _GNU_SOURCE
#include "h5parent.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static bool limits_valid(const npyg_hdf5_limits *l) { return npyg__h5_limits_valid(l); }

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


/* The caller's interrupt ended the wait: the helper and the file's child
   are killed now (SIGKILL ends a stopped one too), not asked. */
static int stop_interrupted(npyg_ctx *ctx, const npyg_hdf5_sink *sink)
{
    npyg__h5_end_helper(ctx);
    int rc = npyg__fail(ctx, NPYG_EIO, 0, "interrupted by the caller");
    if (sink) sink->end(sink->user, rc);
    return rc;
}


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
    if ((rc = npyg__h5_own_helper(ctx, &hl)) != 0) return rc;

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
    int sent = npyg__h5_send_scan(ctx, &req, in, pfd[1]);
    if (sent != 0) {
        /* a helper that died since the last file (its parent thread
           ended, or it was killed): one fresh start */
        npyg__h5_end_helper(ctx);
        sent = npyg__h5_start_helper(ctx, &hl) == 0 ? npyg__h5_send_scan(ctx, &req, in, pfd[1]) : -2;
    }
    if (in != fd) close(in);
    close(pfd[1]);
    if (sent != 0) {
        close(pfd[0]);
        npyg__xfree(ctx, buf, BUF_SIZE + hcap);
        if (sent == -2) return ctx->err.code;
        int e = errno;
        npyg__h5_end_helper(ctx);
        return npyg__fail(ctx, NPYG_EHDF5_SANDBOX, 0, "cannot hand the file to the HDF5 helper: %s", strerror(e));
    }

    /* every object at most: its link, its attributes' records, plus the
       hazards found after the walk; a generous multiple keeps it bounded.
       A load adds one record per path and attribute along every path. */
    uint64_t max_records = (uint64_t)hl.max_objects * 4 + 64;
    if (sink) max_records += ((uint64_t)hl.max_objects + hl.max_paths) * 8;
    reader r = {ctx, fn, user, 0, max_records, false, false, 0, "", sink, buf + BUF_SIZE, hcap, 0, "", "", 0,
                &src, false, 0, 0, npyg__h5_load_budget(hl.max_load_bytes, src.size)};
    pipe_in p = {pfd[0], buf, 0, 0, npyg__h5_now_ms() + (int64_t)hl.child_wall_seconds * 1000, false, false, 0, false, ctx, false};
    bool protocol = false, too_long = false;
    char *line;
    while (!protocol && !(r.stopped && sink) && (line = npyg__h5_pipe_line(&p, &too_long))) {
        char *f[8];
        int n = npyg__h5_split(line, f, 8);
        int lr = n >= 1 && f[0][0] && strchr("GLDA", f[0][0]) && !r.ended ? npyg__h5_load_line(&r, &p, f, n)
                 : npyg__h5_handle_line(&r, line, f, n)                               ? LINE_OK
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
        if (npyg__h5_drain(ctx, 1, npyg__h5_now_ms() + 5000) != 0) npyg__h5_end_helper(ctx);
    } else {
        got = npyg__h5_next_done(ctx, &done, killed ? npyg__h5_now_ms() + 5000 : p.deadline);
    }
    if (got != 0 && errno == ECANCELED) return stop_interrupted(ctx, sink);
    if (got != 0 && !killed && errno == ETIMEDOUT) {
        timeout = killed = true;
        send(ctx->h5_sock, &kill_msg, sizeof kill_msg, MSG_NOSIGNAL);
        got = npyg__h5_next_done(ctx, &done, npyg__h5_now_ms() + 5000);
        if (got != 0 && errno == ECANCELED) return stop_interrupted(ctx, sink);
    }
    if (got != 0 || !npyg__h5_is_done(&done) || done.error) {
        int e = got != 0 ? errno : done.error ? done.error : EPROTO;
        npyg__h5_end_helper(ctx);
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
