/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * I/O faults, injected at every point in turn, on every .npy file, every
 * .npz archive (up to 1 MiB), every .ra file and every HDF5 and MAT file
 * (the probe, and the scan's reads of its sandboxed child) of the corpus. The rule: a run ends in
 * the verdict of the fault-free run, or in NPYG_EIO when a fault hit a read
 * the verdict needed; never another verdict, never a hang, never a leak.
 * The two-step load (npyg_open_* then npyg_read_payload, and archive
 * members through npyg_zip_open_member / npyg_zip_read_member) is faulted
 * the same way on a share of the files, and on every .ra file
 * (npyg_ra_open_* then npyg_ra_read_data).
 *
 *  - read callback: 1-byte reads; -1 (errno EINTR, then EIO) from the k-th
 *    byte on, for every k (the callback contract: -1 is an error, retrying
 *    EINTR is the callback's job).
 *  - descriptors: pread(2) and read(2) are wrapped at link time
 *    (-Wl,--wrap=pread,--wrap=read, so no LD_PRELOAD): every call returns
 *    at most a few bytes; the k-th call fails with EINTR (the library
 *    retries: same verdict), with EIO, or returns 0 early (a file that
 *    shrinks), for every k; and a pipe fed one byte at a time by a child
 *    process (short reads as a real pipe gives them); then pipes read
 *    through the shim, read(2) failing at each call in turn.
 *  - the pickle scan by descriptor (npyg_pickle_scan_npy) on every .npy
 *    of corpus/pickle, under the same descriptor faults.
 *
 *   test_faults CORPUSDIR
 */
#include "npyguard.h"
#include "testutil.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---------------- the descriptor shim ---------------- */

enum plan { P_NONE, P_SHORT, P_EINTR, P_EIO, P_EOF };

/* Test-only state: the wrapped calls have no user pointer. */
static struct {
    enum plan plan;
    long calls;   /* wrapped calls so far */
    long fail_at; /* the call that fails (P_EINTR, P_EIO, P_EOF) */
    bool fired;
    bool chunked; /* short reads under every plan, not only P_SHORT */
} shim;

ssize_t __real_pread(int fd, void *buf, size_t n, off_t off);
ssize_t __real_read(int fd, void *buf, size_t n);

static ssize_t shim_io(int fd, void *buf, size_t n, off_t off, bool positional)
{
    long k = shim.calls++;
    if ((shim.plan == P_SHORT || shim.chunked) && n > 1) n = 1 + (size_t)(k % 5) < n ? 1 + (size_t)(k % 5) : n;
    if (k == shim.fail_at && shim.plan >= P_EINTR) {
        shim.fired = true;
        if (shim.plan == P_EOF) return 0;
        errno = shim.plan == P_EINTR ? EINTR : EIO;
        return -1;
    }
    return positional ? __real_pread(fd, buf, n, off) : __real_read(fd, buf, n);
}

ssize_t __wrap_pread(int fd, void *buf, size_t n, off_t off);
ssize_t __wrap_pread(int fd, void *buf, size_t n, off_t off) { return shim_io(fd, buf, n, off, true); }
ssize_t __wrap_read(int fd, void *buf, size_t n);
ssize_t __wrap_read(int fd, void *buf, size_t n) { return shim_io(fd, buf, n, 0, false); }

static void shim_set(enum plan p, long fail_at)
{
    shim.plan = p;
    shim.calls = 0;
    shim.fail_at = fail_at;
    shim.fired = false;
}

/* ---------------- outcomes ---------------- */

typedef struct outcome {
    int rc;
    uint64_t offset;
    uint64_t count, payload, data_offset;
} outcome;

static outcome take(npyg_ctx *ctx, int rc)
{
    outcome o = {rc, rc ? npyg_last_error(ctx)->offset : 0, 0, 0, 0};
    const npyg_info *in = npyg_get_info(ctx);
    if (!rc && in) {
        o.count = in->count;
        o.payload = in->payload_bytes;
        o.data_offset = in->data_offset;
    }
    return o;
}

static bool same(outcome a, outcome b)
{
    return a.rc == b.rc && a.offset == b.offset && a.count == b.count && a.payload == b.payload &&
           a.data_offset == b.data_offset;
}

static tu_alloc ta;

static npyg_ctx *new_ctx(void)
{
    tu_alloc_init(&ta, UINT64_MAX);
    npyg_alloc al = tu_allocator(&ta);
    npyg_options o = {NPYG_PROFILE_NUMPY, NULL, &al, 0};
    return npyg_ctx_new(&o);
}

static void free_ctx(npyg_ctx *ctx, const char *what)
{
    npyg_ctx_free(ctx);
    TU_CHECK(ta.now == 0, "%s: %llu bytes leaked", what, (unsigned long long)ta.now);
}

/* ---------------- .npy through the callback ---------------- */

typedef struct cbr {
    const unsigned char *p;
    size_t len, pos, fail_at;
    int err; /* 0: 1-byte reads, no failure */
    bool fired;
} cbr;

static long long cb_read(void *user, void *buf, size_t n)
{
    cbr *r = user;
    if (r->err && r->pos >= r->fail_at) {
        r->fired = true;
        errno = r->err;
        return -1;
    }
    size_t k = r->len - r->pos < n ? r->len - r->pos : n;
    if (!r->err && k > 1) k = 1;
    memcpy(buf, r->p + r->pos, k);
    r->pos += k;
    return (long long)k;
}

static int npy_files, npz_files, ra_files, hdf5_files, hdf5_scanned, runs, eio_seen;

static outcome take_ra(npyg_ctx *ctx, int rc)
{
    outcome o = {rc, rc ? npyg_last_error(ctx)->offset : 0, 0, 0, 0};
    const npyg_ra_info *in = npyg_get_ra_info(ctx);
    if (!rc && in) {
        o.count = in->count;
        o.payload = in->data_bytes;
        o.data_offset = in->data_offset;
    }
    return o;
}

/* A single-file format read from the start: its call on the input set
   last (a buffer, a callback, a descriptor), its outcome, and the
   verdicts a file that seems to end early may give. */
typedef struct kind {
    int (*call)(npyg_ctx *);
    outcome (*take)(npyg_ctx *, int);
    int *count;
    int truncated[4];
} kind;

static const kind npy_kind = {npyg_validate, take, &npy_files,
                              {NPYG_ETRUNC_PAYLOAD, NPYG_ETRUNC_HEADER, NPYG_ETRUNC_PREAMBLE, NPYG_EMAGIC}};
static const kind ra_kind = {npyg_ra_validate, take_ra, &ra_files,
                             {NPYG_ERA_TRUNC_DATA, NPYG_ERA_TRUNC_DIMS, NPYG_ERA_TRUNC_HEADER, NPYG_ERA_MAGIC}};

/* The buffer a load reads into, kept for all the runs of one file: a
   header may declare a payload far larger than the file, and allocating
   that for every faulted run had the sanitizer builds poison and unpoison
   it each time (14 minutes of io_faults under ASan). */
static struct {
    void *p;
    size_t cap;
} scratch;

static void *scratch_get(size_t n)
{
    if (n <= scratch.cap && scratch.p) return scratch.p;
    free(scratch.p);
    scratch.p = malloc(n ? n : 1);
    scratch.cap = scratch.p ? n : 0;
    return scratch.p;
}

static void scratch_drop(void)
{
    free(scratch.p);
    scratch.p = NULL;
    scratch.cap = 0;
}

/* The two-step load, open then read into a buffer, as one call. */
static int load(npyg_ctx *ctx)
{
    int rc = npyg_open(ctx);
    if (rc) return rc;
    size_t n = (size_t)npyg_get_info(ctx)->payload_bytes;
    void *p = scratch_get(n);
    return p ? npyg_read_payload(ctx, p, n) : NPYG_ENOMEM;
}
static int load_files;
static const kind load_kind = {load, take, &load_files,
                               {NPYG_ETRUNC_PAYLOAD, NPYG_ETRUNC_HEADER, NPYG_ETRUNC_PREAMBLE, NPYG_EMAGIC}};

/* The same for a .ra file: npyg_ra_open, then npyg_ra_read_data. */
static int ra_load(npyg_ctx *ctx)
{
    int rc = npyg_ra_open(ctx);
    if (rc) return rc;
    size_t n = (size_t)npyg_get_ra_info(ctx)->data_bytes;
    void *p = scratch_get(n);
    return p ? npyg_ra_read_data(ctx, p, n) : NPYG_ENOMEM;
}
static int ra_load_files;
static const kind ra_load_kind = {ra_load, take_ra, &ra_load_files,
                                  {NPYG_ERA_TRUNC_DATA, NPYG_ERA_TRUNC_DIMS, NPYG_ERA_TRUNC_HEADER, NPYG_ERA_MAGIC}};

static bool truncated(const kind *k, int rc)
{
    for (size_t i = 0; i < sizeof k->truncated / sizeof k->truncated[0]; i++)
        if (rc == k->truncated[i]) return true;
    return false;
}

/* What a stream of the file gets, given the buffer's verdict want: a
   stream is never searched for an HDF5 superblock, so where the buffer
   is refused as a polyglot the stream gets what its bytes say, a verdict
   on the payload's size (kd->truncated[0] is the format's truncation),
   read here through a fault-free callback. Otherwise want itself. */
static outcome stream_want(npyg_ctx *ctx, const kind *kd, const unsigned char *data, size_t len, outcome want)
{
    if (want.rc != NPYG_EPOLYGLOT) return want;
    cbr r = {data, len, 0, 0, 0, false};
    npyg_set_input_read(ctx, cb_read, &r);
    outcome got = kd->take(ctx, kd->call(ctx));
    TU_CHECK(got.rc == 0 || got.rc == kd->truncated[0] || got.rc == NPYG_ETRAILING,
             "a polyglot by buffer, %s as a stream", npyg_error_name(got.rc));
    return got;
}

static void stream_file(const char *path, const kind *kd)
{
    tu_current = path;
    size_t len;
    unsigned char *data = tu_slurp(path, &len);
    if (!data) { TU_CHECK(0, "cannot read"); return; }
    (*kd->count)++;
    npyg_ctx *ctx = new_ctx();
    npyg_set_input_buffer(ctx, data, len);
    outcome want = kd->take(ctx, kd->call(ctx));
    outcome swant = stream_want(ctx, kd, data, len, want);

    cbr r = {data, len, 0, 0, 0, false};
    npyg_set_input_read(ctx, cb_read, &r);
    outcome got = kd->take(ctx, kd->call(ctx));
    TU_CHECK(same(got, swant), "1-byte reads: %s at %llu, buffer %s at %llu", npyg_error_name(got.rc),
             (unsigned long long)got.offset, npyg_error_name(swant.rc), (unsigned long long)swant.offset);
    for (int e = 0; e < 2; e++) {
        for (size_t k = 0; k <= len; k++) {
            r = (cbr){data, len, 0, k, e ? EIO : EINTR, false};
            npyg_set_input_read(ctx, cb_read, &r);
            got = kd->take(ctx, kd->call(ctx));
            runs++;
            if (r.fired && got.rc == NPYG_EIO) eio_seen++;
            if (r.fired) TU_CHECK(got.rc == NPYG_EIO, "callback fails at byte %zu: %s", k, npyg_error_name(got.rc));
            else TU_CHECK(same(got, swant), "callback would fail at byte %zu, never asked: %s", k, npyg_error_name(got.rc));
        }
    }

    /* The same file by descriptor, through the shim. */
    int fd = open(path, O_RDONLY);
    npyg_set_input_fd(ctx, fd);
    shim_set(P_NONE, -1);
    got = kd->take(ctx, kd->call(ctx));
    TU_CHECK(same(got, want), "descriptor: %s, buffer %s", npyg_error_name(got.rc), npyg_error_name(want.rc));
    long calls = shim.calls;
    TU_CHECK(calls > 0, "the shim saw no read: is pread wrapped?");
    shim_set(P_SHORT, -1);
    npyg_set_input_fd(ctx, fd);
    got = kd->take(ctx, kd->call(ctx));
    TU_CHECK(same(got, want), "short preads: %s, buffer %s", npyg_error_name(got.rc), npyg_error_name(want.rc));
    for (enum plan p = P_EINTR; p <= P_EOF; p++) {
        for (long k = 0; k <= calls; k++) {
            shim_set(p, k);
            npyg_set_input_fd(ctx, fd);
            got = kd->take(ctx, kd->call(ctx));
            runs++;
            if (shim.fired && got.rc == NPYG_EIO) eio_seen++;
            bool ok = same(got, want) || (shim.fired && p != P_EINTR && got.rc == NPYG_EIO) ||
                      /* a file that seems to end early is a truncated file */
                      (shim.fired && p == P_EOF && truncated(kd, got.rc));
            TU_CHECK(ok, "pread call %ld %s: %s, fault-free %s", k,
                     p == P_EINTR ? "EINTR" : p == P_EIO ? "EIO" : "returns 0", npyg_error_name(got.rc),
                     npyg_error_name(want.rc));
        }
    }
    shim_set(P_NONE, -1);
    close(fd);
    free_ctx(ctx, path);
    free(data);
    scratch_drop();
}

static void npy_file(const char *path)
{
    static unsigned seen;
    stream_file(path, &npy_kind);
    /* the load's read paths, on one small file in four (a fault at every
       byte costs the square of the size) */
    struct stat st;
    if (stat(path, &st) == 0 && st.st_size <= 4096 && seen++ % 4 == 0) stream_file(path, &load_kind);
}
static void ra_file(const char *path)
{
    stream_file(path, &ra_kind);
    stream_file(path, &ra_load_kind);
}

/* A pipe fed by a child one byte per write: the reader sees the short
   reads a real pipe gives, and EINTR from signals between them. */
static void npy_pipe(const char *path)
{
    tu_current = path;
    size_t len;
    unsigned char *data = tu_slurp(path, &len);
    if (!data) return;
    npyg_ctx *ctx = new_ctx();
    npyg_set_input_buffer(ctx, data, len);
    outcome want = take(ctx, npyg_validate(ctx));
    want = stream_want(ctx, &npy_kind, data, len, want);
    int p[2];
    if (pipe(p) != 0) { TU_CHECK(0, "pipe"); free(data); free_ctx(ctx, path); return; }
    pid_t pid = fork();
    if (pid == 0) {
        close(p[0]);
        signal(SIGPIPE, SIG_IGN); /* the reader may stop early */
        for (size_t i = 0; i < len; i++)
            if (write(p[1], data + i, 1) != 1) break;
        _exit(0);
    }
    close(p[1]);
    npyg_set_input_fd(ctx, p[0]);
    outcome got = take(ctx, npyg_validate(ctx));
    close(p[0]);
    waitpid(pid, NULL, 0);
    /* A pipe has no size: a payload error is seen as the stream ends. */
    TU_CHECK(same(got, want) || (got.rc == want.rc && want.rc == NPYG_ETRUNC_PAYLOAD),
             "pipe: %s at %llu, buffer %s at %llu", npyg_error_name(got.rc), (unsigned long long)got.offset,
             npyg_error_name(want.rc), (unsigned long long)want.offset);
    free_ctx(ctx, path);
    free(data);
}

/* The same pipe, filled before it is read, through the shim: read(2)
   returns a few bytes at a time and its k-th call fails with EINTR (the
   library retries), EIO, or returns 0 early (the writer went away). */
static void npy_pipe_faults(const char *path)
{
    tu_current = path;
    size_t len;
    unsigned char *data = tu_slurp(path, &len);
    if (!data) return;
    npyg_ctx *ctx = new_ctx();
    npyg_set_input_buffer(ctx, data, len);
    outcome want = take(ctx, npyg_validate(ctx));
    want = stream_want(ctx, &npy_kind, data, len, want);
    for (enum plan p = P_EINTR; p <= P_EOF; p++) {
        for (long k = 0;; k++) {
            int fds[2];
            if (len > 60000 || pipe(fds) != 0 || write(fds[1], data, len) != (ssize_t)len) {
                TU_CHECK(0, "pipe");
                break;
            }
            close(fds[1]);
            shim_set(p, k);
            shim.chunked = true;
            npyg_set_input_fd(ctx, fds[0]);
            outcome got = take(ctx, npyg_validate(ctx));
            bool fired = shim.fired;
            shim.chunked = false;
            shim_set(P_NONE, -1);
            close(fds[0]);
            runs++;
            if (fired && got.rc == NPYG_EIO) eio_seen++;
            bool ok = same(got, want) || (got.rc == want.rc && want.rc == NPYG_ETRUNC_PAYLOAD) ||
                      (fired && p == P_EIO && got.rc == NPYG_EIO) ||
                      (fired && p == P_EOF && truncated(&npy_kind, got.rc));
            TU_CHECK(ok, "pipe read call %ld %s: %s, buffer %s", k,
                     p == P_EINTR ? "EINTR" : p == P_EIO ? "EIO" : "returns 0", npyg_error_name(got.rc),
                     npyg_error_name(want.rc));
            if (!fired) break; /* past the last read */
        }
    }
    free_ctx(ctx, path);
    free(data);
}

/* ---------------- .npz ---------------- */

#define MAX_STEPS 64

/* Opens the archive and validates each member; outcome per step, and the
   shim's call count at the end of each step. */
/* A member through npyg_zip_open_member and npyg_zip_read_member: a .npy
   member's payload, or the raw bytes of any other, into a buffer. */
static int npz_load_member(npyg_ctx *ctx, npyg_zip *z, size_t i)
{
    int rc = npyg_zip_open_member(z, i);
    if (rc) return rc;
    const npyg_info *in = npyg_get_info(ctx);
    size_t n = (size_t)(in ? in->payload_bytes : npyg_zip_member(z, i)->uncompressed_size);
    void *p = scratch_get(n);
    return p ? npyg_zip_read_member(z, p, n) : NPYG_ENOMEM;
}

static bool npz_load; /* members loaded instead of validated */

static size_t npz_run(const char *path, outcome *out, long *ends, bool *fired)
{
    npyg_ctx *ctx = new_ctx();
    int fd = open(path, O_RDONLY);
    npyg_zip *z = NULL;
    size_t n = 0;
    bool f0 = shim.fired;
    npyg_set_input_fd(ctx, fd);
    out[n] = take(ctx, npyg_zip_open(ctx, NULL, &z));
    fired[n] = shim.fired != f0;
    ends[n++] = shim.calls;
    for (size_t i = 0; z && i < npyg_zip_count(z) && n < MAX_STEPS; i++) {
        f0 = shim.fired;
        out[n] = take(ctx, npz_load ? npz_load_member(ctx, z, i) : npyg_zip_validate_member(z, i));
        fired[n] = shim.fired != f0;
        ends[n++] = shim.calls;
    }
    npyg_zip_close(z);
    close(fd);
    free_ctx(ctx, path);
    return n;
}

static void npz_file_once(const char *path);

/* Every archive validated member by member; the small ones numpy wrote
   loaded member by member too (the archive reads are the same, only the
   member's end differs). */
static void npz_file(const char *path)
{
    npz_files++;
    npz_load = false;
    npz_file_once(path);
    struct stat st;
    if (strstr(path, "/valid/") && stat(path, &st) == 0 && st.st_size <= 65536) {
        npz_load = true;
        npz_file_once(path);
        npz_load = false;
        scratch_drop();
    }
}

static void npz_file_once(const char *path)
{
    tu_current = path;
    outcome want[MAX_STEPS], got[MAX_STEPS];
    long ends[MAX_STEPS], ends2[MAX_STEPS];
    bool fired[MAX_STEPS];
    shim_set(P_NONE, -1);
    size_t n = npz_run(path, want, ends, fired);
    long calls = shim.calls;
    TU_CHECK(calls > 0, "the shim saw no read: is pread wrapped?");

    shim_set(P_SHORT, -1);
    size_t m = npz_run(path, got, ends2, fired);
    TU_CHECK(m == n, "short preads: %zu steps, %zu without faults", m, n);
    for (size_t i = 0; i < n && i < m; i++)
        TU_CHECK(same(got[i], want[i]), "short preads, step %zu: %s, fault-free %s", i, npyg_error_name(got[i].rc),
                 npyg_error_name(want[i].rc));

    for (enum plan p = P_EINTR; p <= P_EOF; p++) {
        for (long k = 0; k <= calls; k++) {
            shim_set(p, k);
            m = npz_run(path, got, ends2, fired);
            runs++;
            for (size_t i = 0; i < m; i++)
                if (fired[i] && got[i].rc == NPYG_EIO) eio_seen++;
            bool ok = true;
            /* A failed open has no members; any other step must match. */
            if (got[0].rc != want[0].rc) {
                ok = fired[0] && p != P_EINTR && got[0].rc == NPYG_EIO;
            } else {
                ok = m == n;
                for (size_t i = 0; ok && i < m; i++)
                    ok = same(got[i], want[i]) || (fired[i] && p != P_EINTR && got[i].rc == NPYG_EIO);
            }
            TU_CHECK(ok, "pread call %ld %s: open %s (fault-free %s), %zu steps (%zu)", k,
                     p == P_EINTR ? "EINTR" : p == P_EIO ? "EIO" : "returns 0", npyg_error_name(got[0].rc),
                     npyg_error_name(want[0].rc), m, n);
        }
    }
    shim_set(P_NONE, -1);
}

/* ---------------- MAT and HDF5 ---------------- */

/* The probe reads by offset (pread); the scan probes again, then reads
   the sandboxed child's records from a pipe (read). Both go through the
   shim; the child's own reads are libhdf5's and are not faulted. A fault
   in the parent must give the fault-free verdict or NPYG_EIO, never a
   verdict about the file, such as a crash of libhdf5. */

typedef struct h5seen {
    int rc;
    uint64_t offset;
    int objects, hazards;
} h5seen;

static int h5_count(void *user, const npyg_hdf5_object *o)
{
    h5seen *s = user;
    s->objects++;
    if (o->code) s->hazards++;
    return 0;
}

static h5seen h5_scan(npyg_ctx *ctx, int fd)
{
    h5seen s = {0, 0, 0, 0};
    lseek(fd, 0, SEEK_SET);
    npyg_set_input_fd(ctx, fd);
    s.rc = npyg_hdf5_scan(ctx, NULL, h5_count, &s);
    if (s.rc) s.offset = npyg_last_error(ctx)->offset;
    return s;
}

static bool h5_same(h5seen a, h5seen b)
{
    return a.rc == b.rc && a.offset == b.offset && a.objects == b.objects && a.hazards == b.hazards;
}

static bool probe_same(int rc, const npyg_probe_info *a, int want, const npyg_probe_info *b)
{
    return rc == want && a->format == b->format && a->hdf5_offset == b->hdf5_offset && a->warnings == b->warnings;
}

static void hdf5_file(const char *path)
{
    tu_current = path;
    size_t len;
    unsigned char *data = tu_slurp(path, &len);
    if (!data) { TU_CHECK(0, "cannot read"); return; }
    hdf5_files++;
    npyg_ctx *ctx = new_ctx();
    npyg_probe_info want, got;
    npyg_set_input_buffer(ctx, data, len);
    int want_rc = tu_probe(ctx, &want);
    TU_CHECK(want.format == NPYG_FORMAT_HDF5 || want.format == NPYG_FORMAT_MAT73 || want_rc != 0,
             "not recognised as HDF5 or MAT: format %d", (int)want.format);
    int fd = open(path, O_RDONLY);

    npyg_set_input_fd(ctx, fd);
    shim_set(P_NONE, -1);
    int rc = tu_probe(ctx, &got);
    TU_CHECK(probe_same(rc, &got, want_rc, &want), "probe by descriptor: %s, buffer %s", npyg_error_name(rc),
             npyg_error_name(want_rc));
    long calls = shim.calls, probe_calls = calls;
    shim_set(P_SHORT, -1);
    npyg_set_input_fd(ctx, fd);
    rc = tu_probe(ctx, &got);
    TU_CHECK(probe_same(rc, &got, want_rc, &want), "probe, short preads: %s", npyg_error_name(rc));
    for (enum plan p = P_EINTR; p <= P_EOF; p++) {
        for (long k = 0; k <= calls; k++) {
            shim_set(p, k);
            npyg_set_input_fd(ctx, fd);
            rc = tu_probe(ctx, &got);
            runs++;
            if (shim.fired && rc == NPYG_EIO) eio_seen++;
            /* the probe reads only bytes the file's size says are there:
               one that seems to end early changed while it was read */
            bool ok = probe_same(rc, &got, want_rc, &want) || (shim.fired && p != P_EINTR && rc == NPYG_EIO);
            TU_CHECK(ok, "probe, pread call %ld %s: %s format %d, fault-free %s format %d", k,
                     p == P_EINTR ? "EINTR" : p == P_EIO ? "EIO" : "returns 0", npyg_error_name(rc),
                     (int)got.format, npyg_error_name(want_rc), (int)want.format);
        }
    }

    /* Each scan forks a child that runs libhdf5, which is slow under the
       sanitizers: the scan's faults run on every hazard and invalid file
       and on one valid file in eight (the record protocol is the same for
       all; the probe above runs on every file). */
    static unsigned valid_seen;
    bool scan = !strstr(path, "/valid/") || valid_seen++ % 8 == 0;
    if (scan && npyg_hdf5_available()) {
        hdf5_scanned++;
        shim_set(P_NONE, -1);
        h5seen clean = h5_scan(ctx, fd);
        calls = shim.calls; /* the probe's preads and the pipe's reads; the latter vary with timing */
        TU_CHECK(clean.objects > 0 || clean.rc, "the scan reported nothing");
        shim_set(P_SHORT, -1);
        h5seen s = h5_scan(ctx, fd);
        TU_CHECK(h5_same(s, clean), "scan, short reads: %s, %d objects; fault-free %s, %d", npyg_error_name(s.rc),
                 s.objects, npyg_error_name(clean.rc), clean.objects);
        /* The scan starts with the same probe, faulted above: here its last
           read, then every read of the child's records. */
        for (enum plan p = P_EINTR; p <= P_EIO; p++) {
            for (long k = probe_calls ? probe_calls - 1 : 0; k <= calls + 1; k++) {
                shim_set(p, k);
                s = h5_scan(ctx, fd);
                runs++;
                if (shim.fired && s.rc == NPYG_EIO) eio_seen++;
                bool ok = h5_same(s, clean) || (shim.fired && p == P_EIO && s.rc == NPYG_EIO);
                TU_CHECK(ok, "scan, call %ld %s: %s, %d objects; fault-free %s, %d", k, p == P_EINTR ? "EINTR" : "EIO",
                         npyg_error_name(s.rc), s.objects, npyg_error_name(clean.rc), clean.objects);
            }
        }
        shim_set(P_NONE, -1);
    }
    close(fd);
    free_ctx(ctx, path);
    free(data);
}

/* ---------------- the pickle scan by descriptor ---------------- */

static int pickle_files;

/* A scan's verdict and what it found, for comparing two runs. */
typedef struct scanned {
    int rc;
    uint64_t offset, length, opcodes;
    uint32_t nimports;
} scanned;

static scanned scan_fd(npyg_ctx *ctx, int fd)
{
    npyg_set_input_fd(ctx, fd);
    int rc = npyg_pickle_scan_npy(ctx, NULL);
    const npyg_pickle_report *r = npyg_get_pickle_report(ctx);
    return (scanned){rc, rc ? npyg_last_error(ctx)->offset : 0, r ? r->length : 0, r ? r->opcodes : 0,
                     r ? r->nimports : 0};
}

static bool same_scan(scanned a, scanned b)
{
    return a.rc == b.rc && a.offset == b.offset && a.length == b.length && a.opcodes == b.opcodes &&
           a.nimports == b.nimports;
}

/* npyg_pickle_scan_npy of a descriptor on every .npy of corpus/pickle: EINTR is
   retried (same scan), EIO is an I/O error, a read that returns 0 early
   is a file that ends early. */
static void pickle_file(const char *path)
{
    tu_current = path;
    pickle_files++;
    npyg_ctx *ctx = new_ctx();
    int fd = open(path, O_RDONLY);
    shim_set(P_NONE, -1);
    scanned want = scan_fd(ctx, fd);
    long calls = shim.calls;
    TU_CHECK(calls > 0, "the shim saw no read");
    shim_set(P_SHORT, -1);
    scanned got = scan_fd(ctx, fd);
    TU_CHECK(same_scan(got, want), "short preads: %s, fault-free %s", npyg_error_name(got.rc), npyg_error_name(want.rc));
    for (enum plan p = P_EINTR; p <= P_EOF; p++) {
        for (long k = 0; k <= calls; k++) {
            shim_set(p, k);
            got = scan_fd(ctx, fd);
            runs++;
            if (shim.fired && got.rc == NPYG_EIO) eio_seen++;
            bool ended = got.rc == NPYG_EPICKLE_TRUNC || got.rc == NPYG_ETRUNC_HEADER ||
                         got.rc == NPYG_ETRUNC_PREAMBLE || got.rc == NPYG_EMAGIC;
            bool ok = same_scan(got, want) || (shim.fired && p == P_EIO && got.rc == NPYG_EIO) ||
                      (shim.fired && p == P_EOF && ended);
            TU_CHECK(ok, "pread call %ld %s: %s, fault-free %s", k,
                     p == P_EINTR ? "EINTR" : p == P_EIO ? "EIO" : "returns 0", npyg_error_name(got.rc),
                     npyg_error_name(want.rc));
        }
    }
    shim_set(P_NONE, -1);
    close(fd);
    free_ctx(ctx, path);
}

/* ---------------- walking the corpus ---------------- */

static int cmp_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* NPYG_FAULTS_SAMPLE=N: every N-th file of each directory only (CI's
   sanitizer pass, where a fault at every byte costs minutes); the release
   pass runs them all. */
static unsigned sample = 1;

static void each(const char *dir, const char *suffix, off_t max_size, void (*fn)(const char *))
{
    DIR *d = opendir(dir);
    if (!d) return;
    char *names[4096];
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d)) && n < 4096) {
        size_t l = strlen(e->d_name);
        if (l > strlen(suffix) && strcmp(e->d_name + l - strlen(suffix), suffix) == 0) names[n++] = strdup(e->d_name);
    }
    closedir(d);
    qsort(names, n, sizeof *names, cmp_name);
    for (size_t i = 0; i < n; i++) {
        char path[2048];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        struct stat st;
        if (i % sample == 0 && stat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size <= max_size) fn(path);
        free(names[i]);
    }
}

int main(int argc, char **argv)
{
    if (tu_bad_args(argc, 2, "test_faults CORPUSDIR")) return 2;
    const char *n = getenv("NPYG_FAULTS_SAMPLE");
    if (n && *n) {
        char *end;
        unsigned long v = strtoul(n, &end, 10);
        if (*end || v == 0 || v > 100) {
            fprintf(stderr, "test_faults: NPYG_FAULTS_SAMPLE must be 1 to 100\n");
            return 2;
        }
        sample = (unsigned)v;
        printf("test_faults: every %u-th file of each directory\n", sample);
    }
    static const char *npy_dirs[] = {"valid", "compat", "invalid", "unsafe", "pickle", "fuzz-regressions"};
    char dir[1024];
    for (size_t i = 0; i < sizeof npy_dirs / sizeof npy_dirs[0]; i++) {
        snprintf(dir, sizeof dir, "%s/%s", argv[1], npy_dirs[i]);
        each(dir, ".npy", 1 << 16, npy_file);
    }
    snprintf(dir, sizeof dir, "%s/valid", argv[1]);
    each(dir, "-v3.npy", 1 << 16, npy_pipe);
    snprintf(dir, sizeof dir, "%s/valid", argv[1]);
    each(dir, "-le-2d-F-v1.npy", 1 << 14, npy_pipe_faults);
    snprintf(dir, sizeof dir, "%s/invalid", argv[1]);
    each(dir, ".npy", 1 << 12, npy_pipe_faults);
    static const char *npz_dirs[] = {"npz/valid", "npz/compat", "npz/invalid", "npz/unsafe", "pickle"};
    for (size_t i = 0; i < sizeof npz_dirs / sizeof npz_dirs[0]; i++) {
        snprintf(dir, sizeof dir, "%s/%s", argv[1], npz_dirs[i]);
        each(dir, ".npz", 1 << 20, npz_file);
    }
    static const char *ra_dirs[] = {"ra/valid", "ra/invalid", "ra/limit", "fuzz-regressions"};
    for (size_t i = 0; i < sizeof ra_dirs / sizeof ra_dirs[0]; i++) {
        snprintf(dir, sizeof dir, "%s/%s", argv[1], ra_dirs[i]);
        each(dir, ".ra", 1 << 16, ra_file);
    }
    snprintf(dir, sizeof dir, "%s/pickle", argv[1]);
    each(dir, ".npy", 1 << 20, pickle_file);
    TU_AT_LEAST(pickle_files, 100 / sample, "corpus/pickle files scanned by descriptor");
    static const char *h5_dirs[] = {"hdf5/valid/mat", "hdf5/valid/h5", "hdf5/hazard", "hdf5/invalid"};
    static const char *h5_suffix[] = {".mat", ".h5"};
    for (size_t i = 0; i < sizeof h5_dirs / sizeof h5_dirs[0]; i++) {
        snprintf(dir, sizeof dir, "%s/%s", argv[1], h5_dirs[i]);
        for (size_t j = 0; j < 2; j++) each(dir, h5_suffix[j], 1 << 18, hdf5_file);
    }
    TU_CHECK(eio_seen > runs / 4, "only %d of %d faulted runs ended in EIO", eio_seen, runs);
    int every = (int)sample;
    TU_CHECK(load_files >= 50 / every, "only %d .npy files loaded in two steps", load_files);
    TU_CHECK(ra_load_files == ra_files, "%d of %d .ra files loaded in two steps", ra_load_files, ra_files);
    TU_CHECK(npy_files >= 700 / every && npz_files >= 50 / every && ra_files >= 80 / every && hdf5_files >= 100 / every,
             "only %d .npy, %d .npz, %d .ra and %d HDF5/MAT files", npy_files, npz_files, ra_files, hdf5_files);
    printf("test_faults: %d .npy (%d of them also loaded), %d .npz, %d .ra and %d HDF5/MAT files (%d of them scanned), %d faulted runs "
           "(%d ended in EIO), %d checks passed, %d failed\n",
           npy_files, load_files, npz_files, ra_files, hdf5_files, hdf5_scanned, runs, eio_seen, tu_passed, tu_failed);
    return tu_failed != 0;
}
