/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One input: open it, sniff its format from the first bytes, and hand it
 * to that format's validator, which validates (hashing the payload when
 * asked) and builds the report. A new format is a new validator and a row
 * in the table below.
 */
#define _GNU_SOURCE /* O_PATH */
#include "npyvalidate.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct hash_state {
    const sha256_api *api;
    EVP_MD_CTX *md;
} hash_state;

static int hash_chunk(void *user, const void *data, size_t len)
{
    hash_state *h = user;
    return h->api->update(h->md, data, len) == 1 ? 0 : 1;
}

static void hash_begin(const options *o, npyg_ctx *ctx, hash_state *h)
{
    h->md = NULL;
    if (!o->hash) {
        npyg_set_payload_sink(ctx, NULL, NULL);
        return;
    }
    h->api = o->sha256;
    h->md = h->api->ctx_new();
    if (!h->md || h->api->init(h->md, h->api->sha256(), NULL) != 1) die_oom();
    npyg_set_payload_sink(ctx, hash_chunk, h);
}

/* Fills sha (65 bytes) when rc is 0; returns sha or NULL. */
static const char *hash_end(hash_state *h, int rc, char *sha)
{
    if (!h->md) return NULL;
    unsigned char md[32];
    unsigned int mdlen = 0;
    bool ok = !rc && h->api->final(h->md, md, &mdlen) == 1;
    if (ok)
        for (unsigned k = 0; k < mdlen; k++) snprintf(sha + 2 * k, 3, "%02x", md[k]);
    h->api->ctx_free(h->md);
    h->md = NULL;
    return ok ? sha : NULL;
}

/* ---------------- the input ---------------- */

/* A pipe cannot be read twice: the bytes taken to recognise a zip are
   handed back to the .npy parser first. */
typedef struct replay {
    int fd;
    unsigned char head[NPYG_SNIFF_BYTES];
    size_t len, pos;
} replay;

static long long replay_read(void *user, void *buf, size_t n)
{
    replay *r = user;
    if (r->pos < r->len) {
        size_t k = r->len - r->pos < n ? r->len - r->pos : n;
        memcpy(buf, r->head + r->pos, k);
        r->pos += k;
        return (long long)k;
    }
    for (;;) {
        ssize_t got = read(r->fd, buf, n);
        if (got < 0 && errno == EINTR) continue;
        return got;
    }
}

typedef struct input {
    const char *path;
    int fd;
    bool regular; /* random access: pread, sizes known */
    npyg_format format; /* as sniffed, for the report */
    bool at_start; /* opened here: the position is 0, no lseek to learn it */
    replay rp;    /* a stream's first bytes, handed back to its reader */
    const unsigned char *data; /* the whole file, when one read took it all */
    size_t len;
} input;

/* A file this small is read whole with one pread and validated from
   memory: one system call instead of the probe's and the validator's
   own (fstat, lseek and a pread each). Larger files are read where they
   lie, so memory stays bounded by the limits, not by the file. */
#define WHOLE_FILE_BYTES ((size_t)64 << 10)

/* Reads the whole of a file that stat() called regular and size bytes
   long into s->whole. False when it is larger than WHOLE_FILE_BYTES or the
   read does not give exactly size bytes (it failed, came up short, or
   found more: the file changed, or is no longer the one stat() saw). The
   descriptor path then looks at what was opened and reports what it finds. */
static bool read_whole(scratch *s, int fd, uint64_t size)
{
    if (size > WHOLE_FILE_BYTES) return false;
    if (!s->whole && !(s->whole = malloc(WHOLE_FILE_BYTES + 1))) die_oom();
    unsigned char *p = s->whole;
    size_t got = 0;
    while (got <= size) { /* one byte more than stat() said: is there more? */
        size_t want = (size_t)size + 1 - got;
        ssize_t r = pread(fd, p + got, want, (off_t)got);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break;
        got += (size_t)r;
        /* A short read is taken as the end: so it is for a regular file,
           and where it is not, got falls short and the descriptor path
           reads the file again. */
        if ((size_t)r < want) break;
    }
    return got == size;
}

/* The first bytes, without losing them: pread for a regular file, else
   read into the replay buffer. */
static size_t sniff_bytes(input *in, unsigned char *head, size_t n)
{
    if (in->regular) {
        off_t here = in->at_start ? 0 : lseek(in->fd, 0, SEEK_CUR);
        ssize_t got;
        do got = here >= 0 ? pread(in->fd, head, n, here) : -1;
        while (got < 0 && errno == EINTR);
        return got > 0 ? (size_t)got : 0;
    }
    replay *r = &in->rp;
    while (r->len < n && r->len < sizeof r->head) {
        ssize_t got = read(in->fd, r->head + r->len, n - r->len);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) break;
        r->len += (size_t)got;
    }
    memcpy(head, r->head, r->len);
    return r->len;
}

/* ---------------- validators ---------------- */

/* The input as the library reads it: the bytes read whole, the regular
   file, or a stream through its replay of the sniffed bytes. */
static void set_input(npyg_ctx *ctx, input *in)
{
    if (in->data) npyg_set_input_buffer(ctx, in->data, in->len);
    else if (in->regular) npyg_set_input_fd(ctx, in->fd);
    else npyg_set_input_read(ctx, replay_read, &in->rp);
}

static int validate_npy(const options *o, npyg_ctx *ctx, strbuf *b, input *in)
{
    hash_state h;
    hash_begin(o, ctx, &h);
    set_input(ctx, in);
    int rc = npyg_validate(ctx);
    char sha[65] = {0};
    const char *shown = hash_end(&h, rc, sha);
    /* An object array: say what its pickle would import. A stream cannot
       be read again, so only a regular file is scanned; a context of its
       own keeps the validation's error for the report. */
    pickle_view pk = {0};
    npyg_ctx *pc = NULL;
    if (rc == NPYG_EOBJECT && in->regular) {
        pc = new_context(o);
        set_input(pc, in);
        npyg_pickle_scan_npy(pc, NULL);
        pk.report = npyg_get_pickle_report(pc);
        pk.scan_error = *npyg_last_error(pc);
    }
    report_npy(o, b, in->path, ctx, rc, shown, &pk, in->format);
    npyg_ctx_free(pc);
    return status_of(rc ? npyg_last_error(ctx)->code : 0);
}

/* One report per member; the archive's status is the worst. */
static int validate_npz(const options *o, npyg_ctx *ctx, strbuf *b, input *in)
{
    npyg_zip *z = NULL;
    npyg_set_input_fd(ctx, in->fd);
    int rc = npyg_zip_open(ctx, NULL, &z);
    if (rc) {
        report_archive_error(o, b, in->path, npyg_last_error(ctx));
        return status_of(rc);
    }
    int status = 0;
    size_t n = npyg_zip_count(z);
    strbuf members = {0};
    const npyg_zip_entry *first = NULL;
    npyg_error first_error = {0};
    for (size_t i = 0; i < n; i++) {
        hash_state h;
        hash_begin(o, ctx, &h);
        int mrc = npyg_zip_validate_member(z, i);
        char sha[65] = {0};
        const char *shown = hash_end(&h, mrc || !npyg_get_info(ctx), sha);
        npyg_error merr = *npyg_last_error(ctx);
        pickle_view pk = {0};
        npyg_pickle_report *r = NULL;
        if (mrc == NPYG_EOBJECT) {
            npyg_zip_scan_member_pickle(z, i, NULL, &r);
            pk.report = r;
            pk.scan_error = *npyg_last_error(ctx);
        }
        if (o->json && i) sb_puts(&members, ", ");
        report_member(o, &members, in->path, ctx, npyg_zip_member(z, i), mrc, shown, &merr, &pk);
        npyg_pickle_report_free(ctx, r);
        int s = status_of(mrc);
        if (s > status) status = s;
        if (mrc && !first) {
            first = npyg_zip_member(z, i);
            first_error = merr;
        }
    }
    npyg_set_payload_sink(ctx, NULL, NULL);
    report_archive(o, b, in->path, status, n, members.p, first, first ? &first_error : NULL);
    free(members.p);
    npyg_zip_close(z);
    return status;
}

/* A RawArray file: read as a stream when it is not a regular file (the
   sniffed bytes are handed back first). */
static int validate_ra(const options *o, npyg_ctx *ctx, strbuf *b, input *in)
{
    hash_state h;
    hash_begin(o, ctx, &h);
    set_input(ctx, in);
    int rc = npyg_ra_validate(ctx);
    char sha[65] = {0};
    const char *shown = hash_end(&h, rc, sha);
    report_ra(o, b, in->path, ctx, rc, shown);
    return status_of(rc ? npyg_last_error(ctx)->code : 0);
}

/* One report per object; the HDF5 structure is read by libhdf5 in a
   sandboxed child (npyg_hdf5_scan). */
static int validate_hdf5(const options *o, npyg_ctx *ctx, strbuf *b, input *in, const npyg_probe_info *pi)
{
    /* --hash: the datasets as loaded first (a file with a hazard loads
       nothing), then the scan's report, which shows their hashes */
    hdf5_hashes hashes = {0};
    if (o->hash) hdf5_hash_datasets(o, ctx, in->fd, &hashes);
    hdf5_report h = {o, in->path, &hashes, {0}, 0, false};
    npyg_set_input_fd(ctx, in->fd);
    int rc = npyg_hdf5_scan(ctx, NULL, report_hdf5_object, &h);
    report_hdf5(o, b, in->path, ctx, rc, pi, &h);
    free(h.objects.p);
    hdf5_hashes_free(&hashes);
    return status_of(rc);
}

typedef int (*validator_fn)(const options *o, npyg_ctx *ctx, strbuf *b, input *in);

/* By detected format; NPYG_FORMAT_UNKNOWN is refused before this table. */
static const struct {
    npyg_format format;
    validator_fn validate;
    bool needs_regular; /* random access: a stream is spooled to a file first */
} validators[] = {
    {NPYG_FORMAT_NPZ, validate_npz, true},
    {NPYG_FORMAT_NPY, validate_npy, false},
    {NPYG_FORMAT_RA, validate_ra, false},
};

/* Content that is none of the formats: refused with its own code, or,
   under --skip-unrecognized, a record of the skip. */
static int unrecognized(const options *o, strbuf *b, const char *path, const npyg_error *e)
{
    if (o->skip_unrecognized) {
        report_skipped(o, b, path, "unrecognized", e->message);
        return 0;
    }
    report_error(o, b, path, e, NPYG_FORMAT_UNKNOWN);
    return status_of(e->code);
}

static int dispatch(const options *o, npyg_ctx *ctx, strbuf *b, input *in)
{
    unsigned char head[NPYG_SNIFF_BYTES];
    npyg_format f;
    if (in->regular) {
        /* The library's one answer (npyg_detect): leading magic, HDF5
           behind a user block, the MAT header, polyglots. */
        npyg_probe_info pi;
        if (in->data) npyg_set_input_buffer(ctx, in->data, in->len);
        else npyg_set_input_fd(ctx, in->fd);
        int prc = npyg_detect(ctx, &f);
        if (prc == NPYG_EUNRECOGNIZED) return unrecognized(o, b, in->path, npyg_last_error(ctx));
        if (prc) {
            report_error(o, b, in->path, npyg_last_error(ctx), f);
            return status_of(prc);
        }
        pi = *npyg_get_probe_info(ctx);
        if (f == NPYG_FORMAT_HDF5 || f == NPYG_FORMAT_MAT73) return validate_hdf5(o, ctx, b, in, &pi);
    } else {
        /* A stream cannot be read twice: its first bytes decide, and are
           handed back to the reader. */
        size_t got = sniff_bytes(in, head, sizeof head);
        f = npyg_sniff_format(head, got);
        if (got == sizeof head && (!memcmp(head, "\x89HDF\r\n\x1a\n", 8) || !memcmp(head, "MATLAB", 6))) {
            npyg_error e = {.code = NPYG_ENOTREG, .offset = 0, .offset_space = NPYG_OFFSET_FILE};
            snprintf(e.message, sizeof e.message, "an HDF5 or MAT file needs a regular file, not a pipe");
            report_error(o, b, in->path, &e, head[0] == 'M' ? NPYG_FORMAT_MAT73 : NPYG_FORMAT_HDF5);
            return status_of(e.code);
        }
        if (f == NPYG_FORMAT_UNKNOWN) {
            npyg_error e = {.code = NPYG_EUNRECOGNIZED, .offset = 0, .offset_space = NPYG_OFFSET_FILE};
            int n = snprintf(e.message, sizeof e.message, got ? "none of .npy, .npz, .ra, HDF5 or MAT v7.3: starts with bytes"
                                                               : "empty input: none of .npy, .npz, .ra, HDF5 or MAT v7.3");
            for (size_t k = 0; k < got && n > 0 && (size_t)n + 4 < sizeof e.message; k++)
                n += snprintf(e.message + n, sizeof e.message - (size_t)n, " %02x", head[k]);
            return unrecognized(o, b, in->path, &e);
        }
    }
    size_t k = 0;
    while (k + 1 < sizeof validators / sizeof validators[0] && validators[k].format != f) k++;
    if (validators[k].format != f) abort(); /* npyg_detect answers only formats of the table here */
    in->format = validators[k].format;
    if (validators[k].needs_regular && !in->regular) {
        npyg_error e;
        int fd = spool_stream(o, in->rp.head, in->rp.len, in->fd, &e);
        if (fd < 0) {
            report_archive_error(o, b, in->path, &e);
            return status_of(e.code);
        }
        input spooled = {.path = in->path, .fd = fd, .regular = true, .format = in->format};
        int status = validators[k].validate(o, ctx, b, &spooled);
        close(fd);
        return status;
    }
    return validators[k].validate(o, ctx, b, in);
}

/* ---------------- opening ---------------- */

/* Where to look a path up: from dc's descriptor of its directory when the
   path before it was in the same directory (the descriptor is opened on
   the second path there, so a list that changes directory at every line
   costs nothing more), else from the working directory with the whole
   path. A directory that cannot be opened leaves the whole path to the
   lookups, which then report the error as they find it. */
static int lookup_dir(dircache *dc, const char *path, const char **name)
{
    const char *slash = strrchr(path, '/');
    *name = path;
    if (!slash || slash[1] == '\0') return AT_FDCWD;
    size_t len = (size_t)(slash - path);
    while (len > 1 && path[len - 1] == '/') len--; /* "d//a.npy" is in "d" */
    if (len != dc->len || memcmp(dc->dir, path, len) != 0) {
        if (dc->fd >= 0) close(dc->fd);
        dc->fd = -1;
        dc->open_failed = false;
        if (len + 1 > dc->cap) {
            free(dc->dir);
            dc->cap = len + 64;
            dc->dir = malloc(dc->cap);
            if (!dc->dir) die_oom();
        }
        memcpy(dc->dir, path, len);
        dc->dir[len] = '\0';
        dc->len = len;
        return AT_FDCWD;
    }
    if (dc->fd < 0 && !dc->open_failed) {
        dc->fd = open(len ? dc->dir : "/", O_PATH | O_DIRECTORY | O_CLOEXEC);
        dc->open_failed = dc->fd < 0;
    }
    if (dc->fd < 0) return AT_FDCWD;
    *name = slash + 1;
    return dc->fd;
}

void scratch_free(scratch *s)
{
    if (s->dir.fd >= 0) close(s->dir.fd);
    free(s->dir.dir);
    free(s->whole);
    *s = (scratch)SCRATCH_INIT;
}

/* Opens a path for reading: only regular files (a FIFO or device named on
   the command line could block, never end, or act when opened; standard
   input may be a pipe). What is not a regular file is named and refused
   before it is opened. Returns -1 after reporting. */
static int open_input(const options *o, strbuf *b, dircache *dc, const char *path, uint64_t *size)
{
    const char *name;
    int at = lookup_dir(dc, path, &name);
    struct stat st;
    if (fstatat(at, name, &st, 0) == 0) {
        if (!S_ISREG(st.st_mode)) {
            report_refused(o, b, path, (unsigned)st.st_mode);
            return -1;
        }
        *size = (uint64_t)st.st_size;
    }
    /* O_NONBLOCK: should the path become a FIFO meanwhile, opening it must
       not wait for a writer. */
    int fd = openat(at, name, O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) report_io(o, b, path, "cannot open", errno);
    return fd;
}

/* What was opened, when it was not read whole: refused unless it is (still)
   a regular file, whose size is then taken anew. */
static bool recheck_opened(const options *o, strbuf *b, const char *path, int fd, uint64_t *size)
{
    struct stat st;
    if (fstat(fd, &st) != 0) {
        report_io(o, b, path, "cannot stat", errno);
        return false;
    }
    if (!S_ISREG(st.st_mode)) {
        report_refused(o, b, path, (unsigned)st.st_mode);
        return false;
    }
    *size = (uint64_t)st.st_size;
    return true;
}

/* A job that names what a walk or a list found instead of a file to
   check: its record, and the status it counts for. */
static int record(const options *o, strbuf *b, const job *j)
{
    npyg_error e = {.code = NPYG_EIO, .offset = 0, .offset_space = NPYG_OFFSET_FILE};
    const char *kind = "unreadable_directory";
    switch (j->kind) {
    case ENTRY_EXCLUDED:
        report_skipped(o, b, j->path, "excluded", "the name matches no --include pattern");
        return 0;
    case ENTRY_SYMLINK:
    case ENTRY_SPECIAL:
        e.code = NPYG_ENOTREG;
        kind = j->kind == ENTRY_SYMLINK ? "symlink" : "special";
        snprintf(e.message, sizeof e.message, "is %s: not %s under -r, not checked", file_kind(j->mode),
                 j->kind == ENTRY_SYMLINK ? "followed" : "opened");
        break;
    case ENTRY_DIR_ERROR:
        snprintf(e.message, sizeof e.message, "directory cannot be read: %s: nothing under it was checked",
                 strerror(j->err));
        break;
    case ENTRY_TOO_DEEP:
        snprintf(e.message, sizeof e.message, "directories nested deeper than the walk's bound: not checked");
        kind = "too_deep";
        break;
    case ENTRY_VANISHED:
        snprintf(e.message, sizeof e.message, "vanished between readdir and lstat: not checked");
        kind = "vanished";
        break;
    case ENTRY_STAT_ERROR:
        snprintf(e.message, sizeof e.message, "cannot stat: %s: not checked", strerror(j->err));
        kind = "unstattable";
        break;
    case ENTRY_LIST_ERROR:
        snprintf(e.message, sizeof e.message, "file list cannot be read: %s: the paths in it were not checked",
                 strerror(j->err));
        kind = "unreadable_list";
        break;
    case ENTRY_LIST_LONG:
        e.code = NPYG_EINVAL;
        snprintf(e.message, sizeof e.message, "an entry of this file list is longer than any path: dropped");
        kind = "bad_list_entry";
        break;
    default: /* ENTRY_LIST_NUL */
        e.code = NPYG_EINVAL;
        snprintf(e.message, sizeof e.message,
                 "a NUL byte inside a line of the file list: no path holds one (use -0 for NUL-separated lists)");
        kind = "bad_list_entry";
        break;
    }
    report_unchecked(o, b, j->path, kind, &e);
    return e.code == NPYG_EINVAL ? 2 : status_of(e.code);
}

void validate_one(const options *o, npyg_ctx *ctx, scratch *s, job *j)
{
    strbuf b = {0};
    if (j->kind != ENTRY_CHECK) {
        j->status = record(o, &b, j);
        j->out = b.p;
        return;
    }
    bool is_stdin = strcmp(j->path, "-") == 0;
    uint64_t size = 0;
    input in = {.path = j->path, .fd = is_stdin ? STDIN_FILENO : open_input(o, &b, &s->dir, j->path, &size)};
    if (in.fd < 0) {
        j->status = 2;
        j->out = b.p;
        return;
    }
    bool whole = false;
    if (is_stdin) {
        struct stat st;
        in.regular = fstat(in.fd, &st) == 0 && S_ISREG(st.st_mode);
    } else {
        in.regular = in.at_start = true;
        whole = read_whole(s, in.fd, size);
        if (!whole && !recheck_opened(o, &b, j->path, in.fd, &size)) {
            close(in.fd);
            j->status = 2;
            j->out = b.p;
            return;
        }
    }
    in.data = whole ? s->whole : NULL;
    in.len = (size_t)size;
    in.rp.fd = in.fd;
    j->status = dispatch(o, ctx, &b, &in);
    if (!is_stdin) close(in.fd);
    j->out = b.p;
}
