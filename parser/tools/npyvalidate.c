/*
 * npyvalidate: check .npy files and .npz archives before they are loaded.
 *
 * Inputs are opened read-only and never written. Files are validated in
 * parallel; output stays in input order, one line (or JSON object) per
 * file. Memory is bounded: each worker has one context, and at most a
 * fixed window of finished results waits for its turn to be printed.
 *
 * Exit status: 0 every file valid, 1 some file invalid, 2 usage or I/O error.
 */
#include "npyguard.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MAX_RECURSION 64

typedef struct options {
    bool json, hash, quiet, recursive;
    npyg_profile profile;
    npyg_limits limits;
    npyg_zip_limits zip_limits;
    int jobs;
} options;

typedef struct strbuf {
    char *p;
    size_t len, cap;
} strbuf;

static void die_oom(void)
{
    fputs("npyvalidate: out of memory\n", stderr);
    exit(2);
}

static void sb_put(strbuf *b, const char *s, size_t n)
{
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->len + n + 1) cap *= 2;
        char *p = realloc(b->p, cap);
        if (!p) die_oom();
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
}

static void sb_puts(strbuf *b, const char *s) { sb_put(b, s, strlen(s)); }

static void sb_printf(strbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_printf(strbuf *b, const char *fmt, ...)
{
    char tmp[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if ((size_t)n >= sizeof tmp) n = sizeof tmp - 1;
    sb_put(b, tmp, (size_t)n);
}

/* JSON string; bytes that are not UTF-8 are shown as their latin1 code points. */
static void sb_json_str(strbuf *b, const char *s, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    sb_puts(b, "\"");
    for (size_t i = 0; i < n;) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\') { char e[2] = {'\\', (char)c}; sb_put(b, e, 2); i++; continue; }
        if (c < 0x20 || c == 0x7f) {
            char e[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
            sb_put(b, e, 6);
            i++;
            continue;
        }
        if (c < 0x80) { sb_put(b, (const char *)&c, 1); i++; continue; }
        size_t len = c >= 0xF0 && c <= 0xF4 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 && c < 0xE0 ? 2 : 0;
        bool ok = len && i + len <= n;
        for (size_t k = 1; ok && k < len; k++) ok = ((unsigned char)s[i + k] & 0xC0) == 0x80;
        if (ok) { sb_put(b, s + i, len); i += len; continue; }
        char e[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
        sb_put(b, e, 6);
        i++;
    }
    sb_puts(b, "\"");
}

/* Integers above 2**53 are strings, so that every JSON reader keeps them. */
static void sb_json_u64(strbuf *b, uint64_t v)
{
    if (v > (UINT64_C(1) << 53)) sb_printf(b, "\"%llu\"", (unsigned long long)v);
    else sb_printf(b, "%llu", (unsigned long long)v);
}

static void sb_json_descr(strbuf *b, const npyg_dtype *d);

static void sb_json_shape(strbuf *b, uint32_t nd, const uint64_t *dims)
{
    sb_puts(b, "[");
    for (uint32_t k = 0; k < nd; k++) {
        if (k) sb_puts(b, ", ");
        sb_json_u64(b, dims[k]);
    }
    sb_puts(b, "]");
}

/* descr as JSON: a typestr, or a list of [name, descr] / [name, descr,
   shape], a titled name being [title, name]; pads are left out. */
static void sb_json_descr(strbuf *b, const npyg_dtype *d)
{
    if (d->kind == NPYG_KIND_STRUCT) {
        sb_puts(b, "[");
        for (uint32_t k = 0; k < d->nfields; k++) {
            const npyg_field *f = &d->fields[k];
            if (k) sb_puts(b, ", ");
            sb_puts(b, "[");
            if (f->title) {
                sb_puts(b, "[");
                sb_json_str(b, f->title, f->title_len);
                sb_puts(b, ", ");
            }
            sb_json_str(b, f->name, f->name_len);
            if (f->title) sb_puts(b, "]");
            sb_puts(b, ", ");
            const npyg_dtype *t = f->type;
            if (t->kind == NPYG_KIND_SUBARRAY) {
                sb_json_descr(b, t->base);
                sb_puts(b, ", ");
                sb_json_shape(b, t->sub_ndim, t->sub_shape);
            } else {
                sb_json_descr(b, t);
            }
            sb_puts(b, "]");
        }
        sb_puts(b, "]");
    } else if (d->kind == NPYG_KIND_SUBARRAY) {
        sb_puts(b, "[");
        sb_json_descr(b, d->base);
        sb_puts(b, ", ");
        sb_json_shape(b, d->sub_ndim, d->sub_shape);
        sb_puts(b, "]");
    } else {
        char s[64];
        npyg_format_descr(d, s, sizeof s); /* "'<f8'" */
        size_t n = strlen(s);
        sb_json_str(b, s + 1, n >= 2 ? n - 2 : 0);
    }
}

static const char *warning_names[] = {
    "trailing_bytes", "unaligned", "legacy_alignment", "noncanonical_header", "native_byte_order",
    "python2_long", "dims_over_32", "duplicate_key", "long_double", "zero_itemsize",
    "int_subarray_shape", "latin1_header",
};

/* ---------------- one file ---------------- */

typedef struct job {
    const char *path;
    char *out;    /* the finished report */
    int status;   /* 0 valid, 1 invalid, 2 I/O */
    bool done;
} job;

typedef struct hash_state {
    EVP_MD_CTX *md;
} hash_state;

static int hash_chunk(void *user, const void *data, size_t len)
{
    hash_state *h = user;
    return EVP_DigestUpdate(h->md, data, len) == 1 ? 0 : 1;
}

static void report_io(const options *o, strbuf *b, const char *path, const char *what, int err)
{
    if (o->json) {
        sb_puts(b, "{\"path\": ");
        sb_json_str(b, path, strlen(path));
        sb_puts(b, ", \"ok\": false, \"error\": {\"code\": 3, \"name\": \"NPYG_EIO\", \"class\": \"io\", \"offset\": 0, \"message\": ");
        char msg[256];
        snprintf(msg, sizeof msg, "%s: %s", what, err ? strerror(err) : "not a regular file");
        sb_json_str(b, msg, strlen(msg));
        sb_puts(b, "}}\n");
    } else {
        sb_printf(b, "%s: io: %s: %s\n", path, what, err ? strerror(err) : "not a regular file");
    }
}

/* The error as a JSON object: {"code": ..., "message": ...}. */
static void sb_json_error(strbuf *b, const npyg_error *e)
{
    sb_printf(b, "{\"code\": %d, \"name\": \"%s\", \"class\": \"%s\", \"offset\": ", e->code, npyg_error_name(e->code),
              npyg_error_class(e->code));
    sb_json_u64(b, e->offset);
    sb_puts(b, ", \"message\": ");
    sb_json_str(b, e->message, strlen(e->message));
    sb_puts(b, "}");
}

/* descr as numpy writes it; *big is malloc'd when it does not fit. */
static const char *descr_text(const npyg_info *in, char *small, size_t size, char **big)
{
    size_t need = npyg_format_descr(in->dtype, small, size);
    *big = NULL;
    if (need < size) return small;
    *big = malloc(need + 1);
    if (!*big) die_oom();
    npyg_format_descr(in->dtype, *big, need + 1);
    return *big;
}

/* The fields of a valid array, as JSON members after an opening brace. */
static void sb_json_info(strbuf *b, const npyg_info *in, const char *dtext, const char *sha)
{
    sb_printf(b, "\"version\": \"%d.%d\", \"header_len\": %u, \"data_offset\": %llu, \"descr\": ", in->version_major,
              in->version_minor, in->header_len, (unsigned long long)in->data_offset);
    sb_json_descr(b, in->dtype);
    sb_puts(b, ", \"descr_repr\": ");
    sb_json_str(b, dtext, strlen(dtext));
    sb_puts(b, ", \"shape\": ");
    sb_json_shape(b, in->ndim, in->shape);
    sb_printf(b, ", \"fortran_order\": %s, \"itemsize\": %llu, \"count\": ", in->fortran_order ? "true" : "false",
              (unsigned long long)in->dtype->itemsize);
    sb_json_u64(b, in->count);
    sb_puts(b, ", \"payload_bytes\": ");
    sb_json_u64(b, in->payload_bytes);
    sb_puts(b, ", \"trailing_bytes\": ");
    sb_json_u64(b, in->trailing_bytes);
    sb_puts(b, ", \"warnings\": [");
    bool first = true;
    for (unsigned k = 0; k < sizeof warning_names / sizeof warning_names[0]; k++) {
        if (!(in->warnings & (1u << k))) continue;
        sb_printf(b, "%s\"%s\"", first ? "" : ", ", warning_names[k]);
        first = false;
    }
    sb_puts(b, "]");
    if (sha) sb_printf(b, ", \"payload_sha256\": \"%s\"", sha);
}

/* "label: ok <f8 shape=(3,) order=C v1.0", then one line per warning. */
static void sb_human_ok(strbuf *b, const char *label, const npyg_info *in, const char *dtext, const char *sha)
{
    const char *shown = dtext;
    size_t slen = strlen(dtext);
    if (slen >= 2 && dtext[0] == '\'') { shown = dtext + 1; slen -= 2; } /* '<f8' -> <f8 */
    sb_printf(b, "%s: ok ", label);
    sb_put(b, shown, slen);
    sb_puts(b, " shape=(");
    for (uint32_t k = 0; k < in->ndim; k++)
        sb_printf(b, "%s%llu", k ? ", " : "", (unsigned long long)in->shape[k]);
    sb_printf(b, "%s) order=%s v%d.%d", in->ndim == 1 ? "," : "", in->fortran_order ? "F" : "C",
              in->version_major, in->version_minor);
    if (sha) sb_printf(b, " sha256=%s", sha);
    sb_puts(b, "\n");
    for (unsigned k = 0; k < sizeof warning_names / sizeof warning_names[0]; k++)
        if (in->warnings & (1u << k)) sb_printf(b, "%s: warning: %s\n", label, npyg_warning_string(1u << k));
}

static void report(const options *o, strbuf *b, const char *path, npyg_ctx *ctx, int rc, const char *sha)
{
    if (rc) {
        const npyg_error *e = npyg_last_error(ctx);
        if (o->json) {
            sb_puts(b, "{\"path\": ");
            sb_json_str(b, path, strlen(path));
            sb_puts(b, ", \"ok\": false, \"error\": ");
            sb_json_error(b, e);
            sb_puts(b, "}\n");
        } else {
            sb_printf(b, "%s:%llu: %s: %s\n", path, (unsigned long long)e->offset, npyg_error_class(e->code), e->message);
        }
        return;
    }
    const npyg_info *in = npyg_get_info(ctx);
    char descr[256], *big;
    const char *dtext = descr_text(in, descr, sizeof descr, &big);
    if (o->json) {
        sb_puts(b, "{\"path\": ");
        sb_json_str(b, path, strlen(path));
        sb_puts(b, ", \"ok\": true, ");
        sb_json_info(b, in, dtext, sha);
        sb_puts(b, "}\n");
    } else if (!o->quiet) {
        sb_human_ok(b, path, in, dtext, sha);
    }
    free(big);
}

static int status_of(int code)
{
    return code == 0 ? 0 : (code == NPYG_EIO || code == NPYG_ENOTREG || code == NPYG_ENOMEM) ? 2 : 1;
}

static void hash_begin(const options *o, npyg_ctx *ctx, hash_state *h)
{
    h->md = NULL;
    if (!o->hash) {
        npyg_set_payload_sink(ctx, NULL, NULL);
        return;
    }
    h->md = EVP_MD_CTX_new();
    if (!h->md || EVP_DigestInit_ex(h->md, EVP_sha256(), NULL) != 1) die_oom();
    npyg_set_payload_sink(ctx, hash_chunk, h);
}

/* Fills sha (65 bytes) when rc is 0; returns sha or NULL. */
static const char *hash_end(hash_state *h, int rc, char *sha)
{
    if (!h->md) return NULL;
    unsigned char md[32];
    unsigned int mdlen = 0;
    bool ok = !rc && EVP_DigestFinal_ex(h->md, md, &mdlen) == 1;
    if (ok)
        for (unsigned k = 0; k < mdlen; k++) snprintf(sha + 2 * k, 3, "%02x", md[k]);
    EVP_MD_CTX_free(h->md);
    h->md = NULL;
    return ok ? sha : NULL;
}

/* ---------------- one .npz archive ---------------- */

/* Codes 60-89 carry an offset in the archive; the others an offset in the
   member's decompressed bytes. Human output names what the offset is in:
   "a.npz:1234: zip: ..." or "a.npz:x.npy:10: header: ...". */
static bool archive_offset(int code) { return code >= 60 && code < 90; }

static void zip_member_report(const options *o, strbuf *b, const char *path, npyg_ctx *ctx,
                              const npyg_zip_entry *m, int rc, const char *sha)
{
    size_t llen = strlen(path) + m->name_len + 2;
    char *label = malloc(llen);
    if (!label) die_oom();
    snprintf(label, llen, "%s:%s", path, m->name);
    const npyg_info *in = rc ? NULL : npyg_get_info(ctx);
    if (o->json) {
        sb_puts(b, "{\"name\": ");
        sb_json_str(b, m->name, m->name_len);
        sb_printf(b, ", \"ok\": %s, \"method\": %u, \"compressed_size\": ", rc ? "false" : "true", m->method);
        sb_json_u64(b, m->compressed_size);
        sb_puts(b, ", \"uncompressed_size\": ");
        sb_json_u64(b, m->uncompressed_size);
        sb_printf(b, ", \"crc32\": \"%08x\", \"header_offset\": ", m->crc32);
        sb_json_u64(b, m->header_offset);
        sb_puts(b, ", \"zip_warnings\": [");
        static const char *zw[] = {"not_npy_name", "not_npy", "non_ascii_name"};
        bool first = true;
        for (unsigned k = 0; k < 3; k++)
            if (m->warnings & (1u << k)) {
                sb_printf(b, "%s\"%s\"", first ? "" : ", ", zw[k]);
                first = false;
            }
        sb_puts(b, "]");
        if (rc) {
            sb_printf(b, ", \"offset_in\": \"%s\", \"error\": ",
                      archive_offset(npyg_last_error(ctx)->code) ? "archive" : "member");
            sb_json_error(b, npyg_last_error(ctx));
        } else if (in) {
            char descr[256], *big;
            const char *dtext = descr_text(in, descr, sizeof descr, &big);
            sb_puts(b, ", \"npy\": true, ");
            sb_json_info(b, in, dtext, sha);
            free(big);
        } else {
            sb_puts(b, ", \"npy\": false");
        }
        sb_puts(b, "}");
    } else if (rc) {
        const npyg_error *e = npyg_last_error(ctx);
        if (archive_offset(e->code))
            sb_printf(b, "%s:%llu: %s: %s\n", path, (unsigned long long)e->offset, npyg_error_class(e->code), e->message);
        else
            sb_printf(b, "%s:%llu: %s: %s\n", label, (unsigned long long)e->offset, npyg_error_class(e->code), e->message);
    } else if (!o->quiet) {
        if (in) {
            char descr[256], *big;
            const char *dtext = descr_text(in, descr, sizeof descr, &big);
            sb_human_ok(b, label, in, dtext, sha);
            free(big);
        } else {
            sb_printf(b, "%s: ok not .npy (%llu bytes; numpy returns them as bytes)\n", label,
                      (unsigned long long)m->uncompressed_size);
        }
    }
    if (!rc && !o->json && !o->quiet)
        for (unsigned k = 0; k < 3; k++)
            if (m->warnings & (1u << k)) sb_printf(b, "%s: warning: %s\n", label, npyg_zip_warning_string(1u << k));
    free(label);
}

/* One report line per member; the archive's status is the worst. */
static int validate_zip(const options *o, npyg_ctx *ctx, strbuf *b, const char *path, int fd)
{
    npyg_zip *z = NULL;
    int rc = npyg_zip_open_fd(ctx, fd, &o->zip_limits, &z);
    if (rc) {
        const npyg_error *e = npyg_last_error(ctx);
        if (o->json) {
            sb_puts(b, "{\"path\": ");
            sb_json_str(b, path, strlen(path));
            sb_puts(b, ", \"ok\": false, \"archive\": true, \"error\": ");
            sb_json_error(b, e);
            sb_puts(b, ", \"members\": []}\n");
        } else {
            sb_printf(b, "%s:%llu: %s: %s\n", path, (unsigned long long)e->offset, npyg_error_class(e->code), e->message);
        }
        return status_of(e->code);
    }
    int status = 0;
    size_t n = npyg_zip_count(z);
    strbuf members = {0};
    for (size_t i = 0; i < n; i++) {
        hash_state h;
        hash_begin(o, ctx, &h);
        int mrc = npyg_zip_validate_member(z, i);
        char sha[65] = {0};
        const char *shown = hash_end(&h, mrc || !npyg_get_info(ctx), sha);
        if (o->json && i) sb_puts(&members, ", ");
        zip_member_report(o, &members, path, ctx, npyg_zip_member(z, i), mrc, shown);
        int s = mrc ? status_of(npyg_last_error(ctx)->code) : 0;
        if (s > status) status = s;
    }
    if (o->json) {
        sb_puts(b, "{\"path\": ");
        sb_json_str(b, path, strlen(path));
        sb_printf(b, ", \"ok\": %s, \"archive\": true, \"members\": [", status ? "false" : "true");
        if (members.p) sb_puts(b, members.p);
        sb_puts(b, "]}\n");
    } else {
        if (members.p) sb_puts(b, members.p);
        if (n == 0 && !o->quiet) sb_printf(b, "%s: ok empty archive\n", path);
    }
    free(members.p);
    npyg_zip_close(z);
    return status;
}

/* ---------------- one file ---------------- */

/* A pipe cannot be read twice: the bytes taken to recognise a zip are
   handed back to the .npy parser first. */
typedef struct replay {
    int fd;
    unsigned char head[4];
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

static void validate_one(const options *o, npyg_ctx *ctx, job *j)
{
    strbuf b = {0};
    int fd;
    bool is_stdin = strcmp(j->path, "-") == 0;
    if (is_stdin) fd = STDIN_FILENO;
    else {
        /* O_NONBLOCK: opening a FIFO must not wait for a writer. */
        fd = open(j->path, O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
        if (fd < 0) {
            report_io(o, &b, j->path, "cannot open", errno);
            j->status = 2;
            j->out = b.p;
            return;
        }
        struct stat st;
        if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
            int err = errno;
            report_io(o, &b, j->path, S_ISDIR(st.st_mode) ? "is a directory (use -r)" : "refused",
                      S_ISDIR(st.st_mode) ? 0 : err == 0 ? 0 : err);
            close(fd);
            j->status = 2;
            j->out = b.p;
            return;
        }
    }
    /* Zip or not is decided by content, as np.load does. */
    struct stat st;
    bool regular = fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
    replay rp = {.fd = fd};
    if (!regular) {
        while (rp.len < sizeof rp.head) {
            ssize_t got = read(fd, rp.head + rp.len, sizeof rp.head - rp.len);
            if (got < 0 && errno == EINTR) continue;
            if (got <= 0) break;
            rp.len += (size_t)got;
        }
        if (npyg_is_zip(rp.head, rp.len)) {
            if (o->json) {
                sb_puts(&b, "{\"path\": ");
                sb_json_str(&b, j->path, strlen(j->path));
                sb_puts(&b, ", \"ok\": false, \"archive\": true, \"error\": {\"code\": 5, \"name\": \"NPYG_ENOTREG\", "
                            "\"class\": \"io\", \"offset\": 0, \"message\": \"a zip archive needs a regular file, not a pipe\"}, "
                            "\"members\": []}\n");
            } else {
                sb_printf(&b, "%s:0: io: a zip archive needs a regular file, not a pipe\n", j->path);
            }
            j->status = 2;
            j->out = b.p;
            return;
        }
    }
    hash_state h;
    hash_begin(o, ctx, &h);
    int rc = regular ? npyg_validate_fd(ctx, fd) : npyg_validate_read(ctx, replay_read, &rp);
    if (regular && rc == NPYG_EMAGIC) {
        /* Not .npy: perhaps an archive. Asked only now, so that the
           common case costs no extra read. */
        off_t here = lseek(fd, 0, SEEK_CUR);
        ssize_t got = here >= 0 ? pread(fd, rp.head, sizeof rp.head, here) : -1;
        if (got > 0 && npyg_is_zip(rp.head, (size_t)got)) {
            hash_end(&h, rc, NULL);
            npyg_set_payload_sink(ctx, NULL, NULL);
            j->status = validate_zip(o, ctx, &b, j->path, fd);
            if (!is_stdin) close(fd);
            j->out = b.p;
            return;
        }
    }
    if (!is_stdin) close(fd);
    char sha[65] = {0};
    const char *shown = hash_end(&h, rc, sha);
    report(o, &b, j->path, ctx, rc, shown);
    j->status = status_of(rc ? npyg_last_error(ctx)->code : 0);
    j->out = b.p;
}

/* ---------------- the run: workers and ordered output ---------------- */

typedef struct run {
    const options *o;
    job *jobs;
    size_t njobs;
    size_t next;       /* next job to hand out */
    size_t printed;    /* jobs printed so far */
    size_t window;     /* max jobs handed out ahead of printing */
    unsigned waiting;  /* workers waiting for room in the window */
    pthread_mutex_t mu;
    pthread_cond_t ready; /* the job the printer waits for is done */
    pthread_cond_t room;  /* the window moved */
} run;

static npyg_ctx *new_ctx(const options *o)
{
    npyg_options no = {.profile = o->profile, .limits = &o->limits};
    npyg_ctx *ctx = npyg_ctx_new(&no);
    if (!ctx) die_oom();
    return ctx;
}

static void *worker(void *arg)
{
    run *r = arg;
    npyg_ctx *ctx = new_ctx(r->o);
    pthread_mutex_lock(&r->mu);
    for (;;) {
        while (r->next < r->njobs && r->next >= r->printed + r->window) {
            r->waiting++;
            pthread_cond_wait(&r->room, &r->mu);
            r->waiting--;
        }
        if (r->next >= r->njobs) break;
        job *j = &r->jobs[r->next++];
        pthread_mutex_unlock(&r->mu);
        validate_one(r->o, ctx, j);
        pthread_mutex_lock(&r->mu);
        j->done = true;
        /* Only the job next in line wakes the printer. */
        if (j == &r->jobs[r->printed]) pthread_cond_signal(&r->ready);
    }
    pthread_mutex_unlock(&r->mu);
    npyg_ctx_free(ctx);
    return NULL;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A progress line on stderr, when it is a terminal and the run is long. */
typedef struct progress {
    bool on, shown;
    double start, last;
} progress;

static void progress_tick(progress *p, size_t done, size_t n)
{
    if (!p->on) return;
    double t = now();
    if (t - p->start > 1.0 && t - p->last > 0.2) {
        fprintf(stderr, "\r%zu/%zu files", done, n);
        p->last = t;
        p->shown = true;
    }
}

static void emit(job *j, int *status, progress *p)
{
    if (p->shown) {
        fputs("\r\033[K", stderr);
        p->shown = false;
    }
    if (j->out) fputs(j->out, stdout);
    if (j->status > *status) *status = j->status;
    free(j->out);
    j->out = NULL;
}

static int run_all(const options *o, job *jobs, size_t n)
{
    progress p = {isatty(STDERR_FILENO) && n > 1, false, now(), now()};
    int status = 0;
    int nthreads = o->jobs < (int)n ? o->jobs : (int)n;
    if (nthreads <= 1) { /* no hand-off between threads at all */
        npyg_ctx *ctx = new_ctx(o);
        for (size_t k = 0; k < n; k++) {
            validate_one(o, ctx, &jobs[k]);
            emit(&jobs[k], &status, &p);
            progress_tick(&p, k + 1, n);
        }
        npyg_ctx_free(ctx);
        if (p.shown) fputs("\r\033[K", stderr);
        return status;
    }

    run r = {.o = o, .jobs = jobs, .njobs = n, .window = (size_t)o->jobs * 64};
    pthread_mutex_init(&r.mu, NULL);
    pthread_cond_init(&r.ready, NULL);
    pthread_cond_init(&r.room, NULL);
    pthread_t *th = calloc((size_t)nthreads, sizeof *th);
    if (!th) die_oom();
    for (int k = 0; k < nthreads; k++)
        if (pthread_create(&th[k], NULL, worker, &r) != 0) die_oom();
    pthread_mutex_lock(&r.mu);
    while (r.printed < n) {
        while (!jobs[r.printed].done) {
            if (p.on) {
                struct timespec ts;
                clock_gettime(CLOCK_REALTIME, &ts);
                ts.tv_nsec += 200000000;
                if (ts.tv_nsec >= 1000000000) { ts.tv_sec++; ts.tv_nsec -= 1000000000; }
                pthread_cond_timedwait(&r.ready, &r.mu, &ts);
            } else {
                pthread_cond_wait(&r.ready, &r.mu);
            }
            progress_tick(&p, r.printed, n);
        }
        /* Print every finished job in order, then open the window once. */
        while (r.printed < n && jobs[r.printed].done) {
            job *j = &jobs[r.printed];
            pthread_mutex_unlock(&r.mu);
            emit(j, &status, &p);
            pthread_mutex_lock(&r.mu);
            r.printed++;
        }
        if (r.waiting) pthread_cond_broadcast(&r.room);
    }
    pthread_mutex_unlock(&r.mu);
    for (int k = 0; k < nthreads; k++) pthread_join(th[k], NULL);
    if (p.shown) fputs("\r\033[K", stderr);
    free(th);
    pthread_mutex_destroy(&r.mu);
    pthread_cond_destroy(&r.ready);
    pthread_cond_destroy(&r.room);
    return status;
}

/* ---------------- collecting paths ---------------- */

typedef struct pathlist {
    char **v;
    size_t n, cap;
} pathlist;

static void add_path(pathlist *l, const char *p)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 64;
        char **v = realloc(l->v, l->cap * sizeof *v);
        if (!v) die_oom();
        l->v = v;
    }
    l->v[l->n] = strdup(p);
    if (!l->v[l->n]) die_oom();
    l->n++;
}

static bool wanted(const char *name)
{
    size_t n = strlen(name);
    return n >= 4 && (strcmp(name + n - 4, ".npy") == 0 || strcmp(name + n - 4, ".npz") == 0);
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Directory walk: sorted, symlinks not followed, depth bounded. */
static int walk(pathlist *l, const char *dir, int depth)
{
    if (depth > MAX_RECURSION) {
        fprintf(stderr, "npyvalidate: %s: directories nested deeper than %d\n", dir, MAX_RECURSION);
        return 2;
    }
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "npyvalidate: %s: %s\n", dir, strerror(errno));
        return 2;
    }
    pathlist here = {0};
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        size_t len = strlen(dir) + strlen(e->d_name) + 2;
        char *p = malloc(len);
        if (!p) die_oom();
        snprintf(p, len, "%s%s%s", dir, dir[strlen(dir) - 1] == '/' ? "" : "/", e->d_name);
        add_path(&here, p);
        free(p);
    }
    closedir(d);
    qsort(here.v, here.n, sizeof *here.v, cmp_str);
    int status = 0;
    for (size_t k = 0; k < here.n; k++) {
        struct stat st;
        if (lstat(here.v[k], &st) != 0) continue;
        const char *base = strrchr(here.v[k], '/') + 1;
        if (S_ISDIR(st.st_mode)) {
            int s = walk(l, here.v[k], depth + 1);
            if (s > status) status = s;
        } else if (S_ISREG(st.st_mode) && wanted(base)) {
            add_path(l, here.v[k]);
        }
        free(here.v[k]);
    }
    free(here.v);
    return status;
}

static int read_list(pathlist *l, const char *file)
{
    FILE *f = strcmp(file, "-") == 0 ? stdin : fopen(file, "r");
    if (!f) {
        fprintf(stderr, "npyvalidate: %s: %s\n", file, strerror(errno));
        return 2;
    }
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    while ((n = getline(&line, &cap, f)) > 0) {
        while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r')) line[--n] = '\0';
        if (n > 0) add_path(l, line);
    }
    free(line);
    if (f != stdin) fclose(f);
    return 0;
}

/* ---------------- options ---------------- */

static void usage(FILE *to)
{
    fputs("usage: npyvalidate [options] PATH...\n"
          "Validate NumPy .npy files and .npz archives before loading them (an\n"
          "archive is recognised by its content). PATH may be a file, a\n"
          "directory (with -r) or - for standard input.\n"
          "\n"
          "  -r, --recursive         validate every *.npy and *.npz file under directories\n"
          "      --files-from FILE   read paths from FILE, one per line (- for stdin)\n"
          "      --json              one JSON object per file (JSON Lines)\n"
          "      --hash              print the SHA-256 of each payload as stored\n"
          "      --strict            accept only what numpy's writer produces\n"
          "  -q, --quiet             print only problems\n"
          "  -j, --jobs N            files validated in parallel (default: cores)\n"
          "      --max-header-bytes N  (default 10000)\n"
          "      --max-dims N          (default 64)\n"
          "      --max-fields N        (default 4096)\n"
          "      --max-depth N         (default 32)\n"
          "      --max-alloc N         bytes the parser may allocate (default 8388608)\n"
          "      --max-payload N       payload bytes (default 1099511627776)\n"
          "      --max-members N       .npz members (default 4096)\n"
          "      --max-name-bytes N    bytes of one .npz member name (default 512)\n"
          "      --max-uncompressed N  bytes all .npz members inflate to (default 1099511627776)\n"
          "      --max-ratio N         inflated / compressed bytes of a member past its first\n"
          "                            64 MiB (default 100)\n"
          "  -h, --help              this text\n"
          "      --version           print the version\n"
          "\n"
          "Exit status: 0 all valid, 1 some file invalid, 2 usage or I/O error.\n",
          to);
}

static bool parse_u64(const char *s, uint64_t *out)
{
    if (!s || !*s || *s == '-') return false;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end) return false;
    *out = v;
    return true;
}

int main(int argc, char **argv)
{
    options o = {.profile = NPYG_PROFILE_NUMPY};
    npyg_limits_default(&o.limits);
    npyg_zip_limits_default(&o.zip_limits);
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    o.jobs = cores > 0 ? (int)cores : 1;
    pathlist paths = {0};
    int status = 0;
    bool only_paths = false;
    pathlist args = {0};

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (only_paths || a[0] != '-' || strcmp(a, "-") == 0) { add_path(&args, a); continue; }
        const char *val = NULL;
        const char *eq = strchr(a, '=');
        char name[64];
        if (eq && a[1] == '-' && (size_t)(eq - a) < sizeof name) {
            memcpy(name, a, (size_t)(eq - a));
            name[eq - a] = '\0';
            val = eq + 1;
            a = name;
        }
        if (a[1] != '-' && a[2]) { /* short options run together: -rq, -j4, -qj 4 */
            const char *c = a + 1;
            for (; *c && *c != 'j'; c++) {
                if (*c == 'r') o.recursive = true;
                else if (*c == 'q') o.quiet = true;
                else if (*c == 'h') { usage(stdout); return 0; }
                else {
                    fprintf(stderr, "npyvalidate: unknown option -%c in %s\n", *c, a);
                    usage(stderr);
                    return 2;
                }
            }
            if (!*c) continue;
            if (c[1]) val = c + 1;
            a = "-j";
        }
#define TAKE()                                                                    \
    do {                                                                          \
        if (!val) {                                                               \
            if (i + 1 >= argc) {                                                  \
                fprintf(stderr, "npyvalidate: %s needs a value\n", a);            \
                return 2;                                                         \
            }                                                                     \
            val = argv[++i];                                                      \
        }                                                                         \
    } while (0)
        uint64_t n;
        if (!strcmp(a, "--")) only_paths = true;
        else if (!strcmp(a, "-h") || !strcmp(a, "--help")) { usage(stdout); return 0; }
        else if (!strcmp(a, "--version")) { printf("npyvalidate %s\n", npyg_version_string()); return 0; }
        else if (!strcmp(a, "-r") || !strcmp(a, "--recursive")) o.recursive = true;
        else if (!strcmp(a, "--json")) o.json = true;
        else if (!strcmp(a, "--hash")) o.hash = true;
        else if (!strcmp(a, "--strict")) o.profile = NPYG_PROFILE_STRICT;
        else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) o.quiet = true;
        else if (!strcmp(a, "--files-from")) {
            TAKE();
            if (read_list(&args, val)) return 2;
        } else {
            uint64_t *u64 = NULL;
            uint32_t *u32 = NULL;
            int *jobs = NULL;
            if (!strcmp(a, "-j") || !strcmp(a, "--jobs")) jobs = &o.jobs;
            else if (!strcmp(a, "--max-header-bytes")) u64 = &o.limits.max_header_bytes;
            else if (!strcmp(a, "--max-dims")) u32 = &o.limits.max_dims;
            else if (!strcmp(a, "--max-fields")) u32 = &o.limits.max_fields;
            else if (!strcmp(a, "--max-depth")) u32 = &o.limits.max_depth;
            else if (!strcmp(a, "--max-alloc")) u64 = &o.limits.max_alloc_bytes;
            else if (!strcmp(a, "--max-payload")) u64 = &o.limits.max_payload_bytes;
            else if (!strcmp(a, "--max-members")) u32 = &o.zip_limits.max_members;
            else if (!strcmp(a, "--max-name-bytes")) u32 = &o.zip_limits.max_name_bytes;
            else if (!strcmp(a, "--max-uncompressed")) u64 = &o.zip_limits.max_total_uncompressed;
            else if (!strcmp(a, "--max-ratio")) u64 = &o.zip_limits.max_ratio;
            else {
                fprintf(stderr, "npyvalidate: unknown option %s\n", a);
                usage(stderr);
                return 2;
            }
            TAKE();
            if (!parse_u64(val, &n) || (u32 && n > UINT32_MAX) || (jobs && (n < 1 || n > 256))) {
                fprintf(stderr, "npyvalidate: %s: invalid value '%s'\n", a, val);
                return 2;
            }
            if (u64) *u64 = n;
            if (u32) *u32 = (uint32_t)n;
            if (jobs) *jobs = (int)n;
        }
#undef TAKE
    }
    if (npyg_worst_case_alloc(&o.limits) == 0) {
        fputs("npyvalidate: invalid limits (max-header-bytes must be 1..268435456, max-depth 1..64, others >= 1)\n", stderr);
        return 2;
    }
    if (npyg_zip_worst_case_alloc(&o.limits, &o.zip_limits) == 0) {
        fputs("npyvalidate: invalid zip limits (max-members at most 1000000, max-name-bytes 1..65535, max-ratio >= 1)\n",
              stderr);
        return 2;
    }
    if (args.n == 0) {
        usage(stderr);
        return 2;
    }
    for (size_t k = 0; k < args.n; k++) {
        struct stat st;
        if (o.recursive && strcmp(args.v[k], "-") && stat(args.v[k], &st) == 0 && S_ISDIR(st.st_mode)) {
            int s = walk(&paths, args.v[k], 0);
            if (s > status) status = s;
        } else {
            add_path(&paths, args.v[k]);
        }
        free(args.v[k]);
    }
    free(args.v);

    job *jobs = calloc(paths.n ? paths.n : 1, sizeof *jobs);
    if (!jobs) die_oom();
    for (size_t k = 0; k < paths.n; k++) jobs[k].path = paths.v[k];
    int s = paths.n ? run_all(&o, jobs, paths.n) : 0;
    if (s > status) status = s;
    for (size_t k = 0; k < paths.n; k++) free(paths.v[k]);
    free(paths.v);
    free(jobs);
    if (fflush(stdout) != 0) return 2;
    return status;
}
