/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One input, every format: each kind of input (a buffer, a regular file
 * read from a non-zero position, a pipe, a read callback and a positional
 * callback, both giving one byte per call) set with npyg_set_input_* and
 * read by each format's call (npyg_validate, npyg_open, npyg_ra_validate,
 * npyg_ra_open, npyg_probe_input, npyg_zip_open, npyg_pickle_scan_npy).
 * The verdicts are the manifests' (what numpy, zipfile, the RawArray
 * readers, h5py and pickletools made of each corpus file), the payloads'
 * SHA-256 the writers', and every call agrees, code, offset and message,
 * with the deprecated input form for the same input (npyguard_compat.h:
 * this is the one consumer of those forms in the tree). A pipe whose writer
 * interrupts the reader with a signal before every few bytes (no
 * SA_RESTART) gives the same verdicts: read(2) returning EINTR is retried.
 *
 *   test_input CORPUSDIR DIVERGENCES.TSV
 */
/* The input forms are compared with the calls they stand for. */
#define NPYG_COMPAT_INPUT_FORMS
#include "testutil.h"

#if defined(__GNUC__)
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#endif

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum kind { K_BUFFER, K_FILE, K_PIPE, K_READ, K_PREAD, K_COUNT };
static const char *const kind_name[K_COUNT] = {"buffer", "file at offset 777", "pipe", "1-byte read callback",
                                               "1-byte pread callback"};
#define FILE_PREFIX 777 /* bytes before the input in the file: its descriptor starts there */

static const char *corpus;
static tu_divs divergences;

/* ---------------- inputs ---------------- */

typedef struct feed {
    const unsigned char *p;
    size_t len, pos;
} feed;

static long long one_byte(void *user, void *buf, size_t n)
{
    feed *f = user;
    if (f->pos >= f->len || n == 0) return 0;
    memcpy(buf, f->p + f->pos++, 1);
    return 1;
}

static long long one_byte_at(void *user, void *buf, size_t n, uint64_t off)
{
    const feed *f = user;
    if (off >= f->len || n == 0) return 0;
    memcpy(buf, f->p + off, 1);
    return 1;
}

typedef struct writer {
    int fd;
    const unsigned char *p;
    size_t len;
    pthread_t reader;
    bool interrupt; /* signal the reader before every few bytes */
    unsigned signals;
} writer;

static void on_signal(int sig) { (void)sig; }

static void *write_all(void *user)
{
    writer *w = user;
    size_t step = w->interrupt ? 61 : 65536;
    for (size_t at = 0; at < w->len;) {
        if (w->interrupt) {
            usleep(50); /* the reader is blocked in read(2) by now, most often */
            pthread_kill(w->reader, SIGUSR1);
            w->signals++;
        }
        size_t n = w->len - at < step ? w->len - at : step;
        ssize_t r = write(w->fd, w->p + at, n);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break; /* the reader is gone: EPIPE */
        at += (size_t)r;
    }
    close(w->fd);
    return NULL;
}

typedef struct input {
    int kind;
    int fd;
    feed f;
    writer w;
    pthread_t thread;
    bool threaded;
} input;

static char tmp_path[] = "/tmp/npyg-test-input-XXXXXX";
static int tmp_fd = -1;

/* data as an input of kind k, open for one call; input_end closes it. */
static void input_open(input *in, int kind, const unsigned char *data, size_t len, bool interrupt)
{
    memset(in, 0, sizeof *in);
    in->kind = kind;
    in->fd = -1;
    in->f = (feed){data, len, 0};
    if (kind == K_FILE) {
        static const unsigned char junk[FILE_PREFIX] = {0x93, 'N', 'U', 'M', 'P', 'Y', 'r', 'a', 'w'};
        if (ftruncate(tmp_fd, 0) != 0 || pwrite(tmp_fd, junk, sizeof junk, 0) != (ssize_t)sizeof junk ||
            (len && pwrite(tmp_fd, data, len, FILE_PREFIX) != (ssize_t)len))
            abort();
        in->fd = open(tmp_path, O_RDONLY);
        if (in->fd < 0 || lseek(in->fd, FILE_PREFIX, SEEK_SET) != FILE_PREFIX) abort();
    } else if (kind == K_PIPE) {
        int p[2];
        if (pipe(p) != 0) abort();
        in->fd = p[0];
        in->w = (writer){p[1], data, len, pthread_self(), interrupt, 0};
        if (pthread_create(&in->thread, NULL, write_all, &in->w) != 0) abort();
        in->threaded = true;
    }
}

static void input_set(npyg_ctx *ctx, input *in)
{
    int rc = 0;
    switch (in->kind) {
    case K_BUFFER: rc = npyg_set_input_buffer(ctx, in->f.p, in->f.len); break;
    case K_FILE:
    case K_PIPE: rc = npyg_set_input_fd(ctx, in->fd); break;
    case K_READ: rc = npyg_set_input_read(ctx, one_byte, &in->f); break;
    case K_PREAD: rc = npyg_set_input_pread(ctx, one_byte_at, &in->f, in->f.len); break;
    }
    TU_CHECK(rc == 0, "%s: set: %s", kind_name[in->kind], npyg_error_name(rc));
}

static void input_end(input *in)
{
    if (in->kind == K_FILE)
        TU_CHECK(lseek(in->fd, 0, SEEK_CUR) == FILE_PREFIX, "the file's position moved");
    if (in->fd >= 0) close(in->fd);
    if (in->threaded) pthread_join(in->thread, NULL);
}

static bool random_access(int kind) { return kind == K_BUFFER || kind == K_FILE || kind == K_PREAD; }

/* ---------------- outcomes ---------------- */

typedef struct outcome {
    int rc;
    npyg_error err;
    uint64_t facts[6]; /* the format's result fields that every input must agree on */
} outcome;

static outcome outcome_of(const npyg_ctx *ctx, int rc)
{
    outcome o = {.rc = rc, .err = *npyg_last_error(ctx)};
    if (!rc) o.err = (npyg_error){0};
    return o;
}

static void same(const outcome *a, const outcome *b, const char *what, const char *how)
{
    TU_CHECK(a->rc == b->rc && a->err.offset == b->err.offset && a->err.offset_space == b->err.offset_space &&
                 !strcmp(a->err.message, b->err.message) && !memcmp(a->facts, b->facts, sizeof a->facts),
             "%s, %s: %s at %llu '%s', the 0.1.0 call %s at %llu '%s'", what, how, npyg_error_name(a->rc),
             (unsigned long long)a->err.offset, a->err.message, npyg_error_name(b->rc),
             (unsigned long long)b->err.offset, b->err.message);
}

static void sha256_hex(const void *p, size_t n, char out[65])
{
    unsigned char d[32];
    unsigned int dl = 0;
    EVP_Digest(p, n, d, &dl, EVP_sha256(), NULL);
    for (unsigned k = 0; k < 32; k++) sprintf(out + 2 * k, "%02x", d[k]);
}

static npyg_ctx *new_ctx(const npyg_limits *lim)
{
    npyg_options o = {.limits = lim};
    npyg_ctx *ctx = npyg_ctx_new(&o);
    if (!ctx) abort();
    return ctx;
}

/* ---------------- .npy ---------------- */

static outcome npy_validate(npyg_ctx *ctx, input *in, bool old)
{
    int rc;
    if (!old) {
        input_set(ctx, in);
        rc = npyg_validate(ctx);
    } else if (in->kind == K_BUFFER) rc = npyg_validate_buffer(ctx, in->f.p, in->f.len);
    else if (in->kind == K_READ) rc = npyg_validate_read(ctx, one_byte, &in->f);
    else rc = npyg_validate_fd(ctx, in->fd);
    outcome o = outcome_of(ctx, rc);
    const npyg_info *info = npyg_get_info(ctx);
    if (info) {
        uint64_t f[6] = {info->data_offset, info->payload_bytes, info->trailing_bytes, info->ndim, info->warnings,
                         info->header_len};
        memcpy(o.facts, f, sizeof f);
    }
    return o;
}

/* The two-step load: the payload into memory, its SHA-256 into sha. */
static outcome npy_load(npyg_ctx *ctx, input *in, bool old, char sha[65])
{
    int rc;
    if (!old) {
        input_set(ctx, in);
        rc = npyg_open(ctx);
    } else if (in->kind == K_BUFFER) rc = npyg_open_buffer(ctx, in->f.p, in->f.len);
    else if (in->kind == K_READ) rc = npyg_open_read(ctx, one_byte, &in->f);
    else rc = npyg_open_fd(ctx, in->fd);
    sha[0] = '\0';
    if (!rc) {
        uint64_t n = npyg_get_info(ctx)->payload_bytes;
        unsigned char *p = n <= (64u << 20) ? malloc(n ? (size_t)n : 1) : NULL;
        rc = npyg_read_payload(ctx, p, p ? (size_t)n : 0);
        if (!rc && p) sha256_hex(p, (size_t)n, sha);
        free(p);
    }
    return outcome_of(ctx, rc);
}

static size_t npy_files, npy_accepted, npy_loaded;

static void npy_file(const char *name, const json_t *e)
{
    char path[4096];
    size_t len;
    unsigned char *data = tu_read_case(corpus, name, path, &len);
    if (!data) return;
    npy_files++;
    const char *ecode = json_string_value(json_object_get(e, "npyguard_error"));
    const char *verdict = json_string_value(json_object_get(json_object_get(e, "numpy"), "verdict"));
    int want = ecode ? tu_code_of(ecode) : !strcmp(verdict, "accept") ? 0 : -2; /* -2: any refusal */
    if (!strcmp(json_string_value(json_object_get(e, "group")), "unsafe")) want = NPYG_EOBJECT;
    const tu_div *div = tu_divs_lookup(&divergences, name);
    if (div) want = div->code;
    const char *sha_want = json_string_value(json_object_get(e, "payload_sha256"));

    npyg_ctx *ctx = new_ctx(NULL);
    for (int k = 0; k < K_COUNT; k++) {
        input in;
        input_open(&in, k, data, len, false);
        outcome o = npy_validate(ctx, &in, false);
        if (want == -2) TU_CHECK(o.rc != 0, "%s: numpy refuses, npyg_validate accepted", kind_name[k]);
        else TU_CHECK(o.rc == want, "%s: npyg_validate gives %s (%s), want %s", kind_name[k],
                      npyg_error_name(o.rc), o.err.message, npyg_error_name(want));
        if (o.rc == 0 && want == 0) {
            tu_check_fields(npyg_get_info(ctx), e);
            npy_accepted += k == K_BUFFER;
        }
        input_end(&in);
        if (k != K_PREAD) { /* 0.1.0 has no positional callback for .npy */
            input_open(&in, k, data, len, false);
            outcome old = npy_validate(ctx, &in, true);
            input_end(&in);
            same(&o, &old, "npyg_validate", kind_name[k]);
        }

        char sha[65];
        input_open(&in, k, data, len, false);
        outcome lo = npy_load(ctx, &in, false, sha);
        input_end(&in);
        TU_CHECK(lo.rc == o.rc, "%s: npyg_open + npyg_read_payload give %s, npyg_validate %s", kind_name[k],
                 npyg_error_name(lo.rc), npyg_error_name(o.rc));
        if (lo.rc == 0 && want == 0 && sha[0] && sha_want) {
            TU_CHECK(!strcmp(sha, sha_want), "%s: loaded payload sha256 %s, numpy wrote %s", kind_name[k], sha, sha_want);
            npy_loaded += k == K_FILE;
        }
        if (k != K_PREAD) {
            char sha_old[65];
            input_open(&in, k, data, len, false);
            outcome old = npy_load(ctx, &in, true, sha_old);
            input_end(&in);
            same(&lo, &old, "npyg_open", kind_name[k]);
            TU_CHECK(!strcmp(sha, sha_old), "%s: the 0.1.0 load read other bytes", kind_name[k]);
        }
    }
    npyg_ctx_free(ctx);
    free(data);
}

/* ---------------- .ra ---------------- */

static outcome ra_validate(npyg_ctx *ctx, input *in, bool old)
{
    int rc;
    if (!old) {
        input_set(ctx, in);
        rc = npyg_ra_validate(ctx);
    } else if (in->kind == K_BUFFER) rc = npyg_ra_validate_buffer(ctx, in->f.p, in->f.len);
    else if (in->kind == K_READ) rc = npyg_ra_validate_read(ctx, one_byte, &in->f);
    else rc = npyg_ra_validate_fd(ctx, in->fd);
    outcome o = outcome_of(ctx, rc);
    const npyg_ra_info *ra = npyg_get_ra_info(ctx);
    if (ra) {
        uint64_t f[6] = {ra->data_offset, ra->data_bytes, ra->metadata_bytes, ra->ndims, ra->size, ra->count};
        memcpy(o.facts, f, sizeof f);
    }
    return o;
}

static outcome ra_load(npyg_ctx *ctx, input *in, bool old, char sha[65])
{
    int rc;
    if (!old) {
        input_set(ctx, in);
        rc = npyg_ra_open(ctx);
    } else if (in->kind == K_BUFFER) rc = npyg_ra_open_buffer(ctx, in->f.p, in->f.len);
    else if (in->kind == K_READ) rc = npyg_ra_open_read(ctx, one_byte, &in->f);
    else rc = npyg_ra_open_fd(ctx, in->fd);
    sha[0] = '\0';
    if (!rc) {
        uint64_t n = npyg_get_ra_info(ctx)->data_bytes;
        unsigned char *p = n <= (64u << 20) ? malloc(n ? (size_t)n : 1) : NULL;
        rc = npyg_ra_read_data(ctx, p, p ? (size_t)n : 0);
        if (!rc && p) sha256_hex(p, (size_t)n, sha);
        free(p);
    }
    return outcome_of(ctx, rc);
}

static size_t ra_files, ra_loaded;

static void ra_file(const char *dir, const char *name, const json_t *e)
{
    char path[4096];
    size_t len;
    unsigned char *data = tu_read_case(dir, name, path, &len);
    if (!data) return;
    ra_files++;
    const char *ecode = json_string_value(json_object_get(e, "npyguard_error"));
    int want = ecode ? tu_code_of(ecode) : 0;
    npyg_ctx *ctx = new_ctx(NULL);
    for (int k = 0; k < K_COUNT; k++) {
        input in;
        input_open(&in, k, data, len, false);
        outcome o = ra_validate(ctx, &in, false);
        input_end(&in);
        TU_CHECK(o.rc == want, "%s: npyg_ra_validate gives %s (%s), want %s", kind_name[k], npyg_error_name(o.rc),
                 o.err.message, npyg_error_name(want));
        if (o.rc == 0)
            TU_CHECK(o.facts[0] == tu_json_u64(json_object_get(e, "data_offset")) &&
                         o.facts[1] == tu_json_u64(json_object_get(e, "data_bytes")) &&
                         o.facts[2] == tu_json_u64(json_object_get(e, "metadata_bytes")),
                     "%s: data offset %llu, %llu data bytes, %llu metadata bytes, not the writer's", kind_name[k],
                     (unsigned long long)o.facts[0], (unsigned long long)o.facts[1], (unsigned long long)o.facts[2]);
        if (k != K_PREAD) {
            input_open(&in, k, data, len, false);
            outcome old = ra_validate(ctx, &in, true);
            input_end(&in);
            same(&o, &old, "npyg_ra_validate", kind_name[k]);
        }
        char sha[65];
        input_open(&in, k, data, len, false);
        outcome lo = ra_load(ctx, &in, false, sha);
        input_end(&in);
        /* An LZ4 block decodes into the caller's buffer when loading: only
           validation holds the output too, and may be over max_alloc_bytes. */
        TU_CHECK(lo.rc == want || (want == NPYG_ELIMIT_ALLOC && lo.rc == 0), "%s: npyg_ra_open + read gives %s, want %s",
                 kind_name[k], npyg_error_name(lo.rc), npyg_error_name(want));
        if (k != K_PREAD) {
            char sha_old[65];
            input_open(&in, k, data, len, false);
            outcome old = ra_load(ctx, &in, true, sha_old);
            input_end(&in);
            same(&lo, &old, "npyg_ra_open", kind_name[k]);
            TU_CHECK(!strcmp(sha, sha_old), "%s: the 0.1.0 load read other bytes", kind_name[k]);
        }
        const char *sha_want = json_string_value(json_object_get(e, "array_sha256"));
        if (lo.rc == 0 && sha[0] && sha_want) {
            TU_CHECK(!strcmp(sha, sha_want), "%s: loaded array sha256 %s, the writer's %s", kind_name[k], sha, sha_want);
            ra_loaded += k == K_FILE;
        }
    }
    npyg_ctx_free(ctx);
    free(data);
}

/* ---------------- .npz ---------------- */

typedef struct archive_outcome {
    outcome o;
    char member[512]; /* the failing member, "" for the archive or none */
    size_t members;
} archive_outcome;

static archive_outcome npz_walk(npyg_ctx *ctx, input *in, bool old)
{
    archive_outcome a = {0};
    npyg_zip *z = NULL;
    int rc;
    if (!old) {
        input_set(ctx, in);
        rc = npyg_zip_open(ctx, NULL, &z);
    } else if (in->kind == K_BUFFER) rc = npyg_zip_open_buffer(ctx, in->f.p, in->f.len, NULL, &z);
    else rc = npyg_zip_open_fd(ctx, in->fd, NULL, &z);
    for (size_t i = 0; !rc && i < npyg_zip_count(z); i++) {
        rc = npyg_zip_validate_member(z, i);
        a.members++;
        if (rc) snprintf(a.member, sizeof a.member, "%s", npyg_zip_member(z, i)->name);
    }
    a.o = outcome_of(ctx, rc);
    npyg_zip_close(z);
    return a;
}

static size_t npz_files;

static void npz_file(const char *dir, const char *name, const json_t *e)
{
    char path[4096];
    size_t len;
    unsigned char *data = tu_read_case(dir, name, path, &len);
    if (!data) return;
    npz_files++;
    const char *ecode = json_string_value(json_object_get(e, "npyguard_error"));
    const char *emember = json_string_value(json_object_get(e, "npyguard_error_member"));
    int want = ecode ? tu_code_of(ecode) : 0;
    npyg_ctx *ctx = new_ctx(NULL);
    for (int k = 0; k < K_COUNT; k++) {
        input in;
        input_open(&in, k, data, len, false);
        archive_outcome a = npz_walk(ctx, &in, false);
        input_end(&in);
        if (!random_access(k)) {
            TU_CHECK(a.o.rc == NPYG_ENOTREG, "%s: an archive in order only gives %s, not NPYG_ENOTREG", kind_name[k],
                     npyg_error_name(a.o.rc));
            continue;
        }
        TU_CHECK(a.o.rc == want, "%s: npyg_zip_open and its members give %s (%s), want %s", kind_name[k],
                 npyg_error_name(a.o.rc), a.o.err.message, npyg_error_name(want));
        if (want) TU_CHECK(!strcmp(a.member, emember ? emember : ""), "%s: error on member '%s', want '%s'",
                           kind_name[k], a.member, emember ? emember : "");
        else TU_CHECK(a.members == json_array_size(json_object_get(e, "members")), "%s: %zu members, zipfile lists %zu",
                      kind_name[k], a.members, json_array_size(json_object_get(e, "members")));
        if (k != K_PREAD) {
            input_open(&in, k, data, len, false);
            archive_outcome old = npz_walk(ctx, &in, true);
            input_end(&in);
            same(&a.o, &old.o, "npyg_zip_open", kind_name[k]);
        }
    }
    npyg_ctx_free(ctx);
    free(data);
}

/* ---------------- format recognition ---------------- */

static outcome probe(npyg_ctx *ctx, input *in, bool old)
{
    npyg_probe_info info;
    int rc;
    if (!old) {
        input_set(ctx, in);
        rc = npyg_probe_input(ctx);
        const npyg_probe_info *p = npyg_get_probe_info(ctx);
        info = p ? *p : (npyg_probe_info){0};
    } else if (in->kind == K_BUFFER) rc = npyg_probe_buffer(ctx, in->f.p, in->f.len, &info);
    else if (in->kind == K_PREAD) rc = npyg_probe(ctx, one_byte_at, &in->f, in->f.len, &info);
    else rc = npyg_probe_fd(ctx, in->fd, &info);
    outcome o = outcome_of(ctx, rc);
    uint64_t f[6] = {info.format, info.hdf5_offset, info.version, info.warnings, info.subsys_offset, 0};
    memcpy(o.facts, f, sizeof f);
    return o;
}

static size_t probed;

/* want: the code; format: what the info must say (-1: anything). */
static void probe_file(const char *dir, const char *name, int want, int format)
{
    char path[4096];
    size_t len;
    unsigned char *data = tu_read_case(dir, name, path, &len);
    if (!data) return;
    probed++;
    npyg_ctx *ctx = new_ctx(NULL);
    for (int k = 0; k < K_COUNT; k++) {
        input in;
        input_open(&in, k, data, len, false);
        outcome o = probe(ctx, &in, false);
        input_end(&in);
        if (!random_access(k)) {
            TU_CHECK(o.rc == NPYG_ENOTREG && npyg_get_probe_info(ctx) == NULL,
                     "%s: recognition in order only gives %s, not NPYG_ENOTREG", kind_name[k], npyg_error_name(o.rc));
            continue;
        }
        TU_CHECK(o.rc == want, "%s: npyg_probe_input gives %s (%s), want %s", kind_name[k], npyg_error_name(o.rc),
                 o.err.message, npyg_error_name(want));
        if (format >= 0) TU_CHECK((int)o.facts[0] == format, "%s: format %d, want %d", kind_name[k], (int)o.facts[0], format);
        input_open(&in, k, data, len, false);
        outcome old = probe(ctx, &in, true);
        input_end(&in);
        same(&o, &old, "npyg_probe_input", kind_name[k]);
    }
    npyg_ctx_free(ctx);
    free(data);
}

/* ---------------- pickles ---------------- */

static outcome pickle(npyg_ctx *ctx, input *in, const npyg_pickle_limits *lim, bool old)
{
    npyg_pickle_report *mine = NULL;
    const npyg_pickle_report *r;
    int rc;
    if (!old) {
        input_set(ctx, in);
        rc = npyg_pickle_scan_npy(ctx, lim);
        r = npyg_get_pickle_report(ctx);
    } else {
        if (in->kind == K_BUFFER) rc = npyg_pickle_scan_npy_buffer(ctx, in->f.p, in->f.len, lim, &mine);
        else if (in->kind == K_READ) rc = npyg_pickle_scan_npy_read(ctx, one_byte, &in->f, lim, &mine);
        else rc = npyg_pickle_scan_npy_fd(ctx, in->fd, lim, &mine);
        r = mine;
    }
    outcome o = outcome_of(ctx, rc);
    if (r) {
        uint64_t f[6] = {1, (uint64_t)r->status, r->length, r->opcodes, r->nimports, r->flags};
        memcpy(o.facts, f, sizeof f);
    }
    npyg_pickle_report_free(ctx, mine);
    return o;
}

static size_t pickles;

static void pickle_file(const char *dir, const char *name, const json_t *e)
{
    char path[4096];
    size_t len;
    unsigned char *data = tu_read_case(dir, name, path, &len);
    if (!data) return;
    pickles++;
    npyg_pickle_limits lim;
    npyg_pickle_limits_default(&lim);
    const json_t *l = json_object_get(e, "npyguard_limits");
    if (json_object_get(l, "max_stack")) lim.max_stack = (uint32_t)tu_json_u64(json_object_get(l, "max_stack"));
    if (json_object_get(l, "max_memo")) lim.max_memo = (uint32_t)tu_json_u64(json_object_get(l, "max_memo"));
    if (json_object_get(l, "max_bytes")) lim.max_bytes = tu_json_u64(json_object_get(l, "max_bytes"));
    int want = tu_code_of(json_string_value(json_object_get(e, "npyguard_scan")));
    const json_t *names = json_object_get(e, "npyguard_imports_in_order");
    if (!names) names = json_object_get(e, "pickle_imports_in_order");
    npyg_ctx *ctx = new_ctx(NULL);
    for (int k = 0; k < K_COUNT; k++) {
        input in;
        input_open(&in, k, data, len, false);
        outcome o = pickle(ctx, &in, &lim, false);
        input_end(&in);
        TU_CHECK(o.rc == want, "%s: npyg_pickle_scan_npy gives %s (%s), want %s", kind_name[k], npyg_error_name(o.rc),
                 o.err.message, npyg_error_name(want));
        if (o.rc == 0)
            TU_CHECK(o.facts[4] == json_array_size(names), "%s: %llu imports, pickletools finds %zu", kind_name[k],
                     (unsigned long long)o.facts[4], json_array_size(names));
        if (k != K_PREAD) {
            input_open(&in, k, data, len, false);
            outcome old = pickle(ctx, &in, &lim, true);
            input_end(&in);
            same(&o, &old, "npyg_pickle_scan_npy", kind_name[k]);
        }
    }
    npyg_ctx_free(ctx);
    free(data);
}

/* ---------------- signals ---------------- */

/* A pipe whose writer signals the reader before every 61 bytes: read(2)
   fails with EINTR (no SA_RESTART), and the verdict is the buffer's. */
static size_t interrupted_files;
static unsigned signals_sent;

static void interrupted(const char *dir, const char *name, bool ra)
{
    char path[4096];
    size_t len;
    unsigned char *data = tu_read_case(dir, name, path, &len);
    if (!data) return;
    if (len > 16384) { /* a signal per 61 bytes: small files only */
        free(data);
        return;
    }
    interrupted_files++;
    npyg_ctx *ctx = new_ctx(NULL);
    input in;
    input_open(&in, K_BUFFER, data, len, false);
    outcome want = ra ? ra_validate(ctx, &in, false) : npy_validate(ctx, &in, false);
    input_end(&in);
    input_open(&in, K_PIPE, data, len, true);
    outcome got = ra ? ra_validate(ctx, &in, false) : npy_validate(ctx, &in, false);
    input_end(&in);
    signals_sent += in.w.signals;
    TU_CHECK(got.rc == want.rc && !memcmp(got.facts, want.facts, sizeof got.facts),
             "interrupted pipe: %s (%s), buffer %s", npyg_error_name(got.rc), got.err.message, npyg_error_name(want.rc));
    npyg_ctx_free(ctx);
    free(data);
}

/* ---------------- the API's own rules ---------------- */

static void api_rules(void)
{
    tu_current = "api";
    npyg_ctx *ctx = new_ctx(NULL);
    TU_CHECK(npyg_validate(ctx) == NPYG_EINVAL && strstr(npyg_last_error(ctx)->message, "no input"),
             "a call before any input is set: %s", npyg_last_error(ctx)->message);
    TU_CHECK(npyg_set_input_buffer(NULL, "", 0) == NPYG_EINVAL, "NULL ctx");
    TU_CHECK(npyg_set_input_buffer(ctx, NULL, 3) == NPYG_EINVAL, "NULL buffer with a length");
    TU_CHECK(npyg_validate(ctx) == NPYG_EINVAL && !strcmp(npyg_last_error(ctx)->message, "NULL buffer"),
             "the call after it: %s", npyg_last_error(ctx)->message);
    TU_CHECK(npyg_set_input_read(ctx, NULL, NULL) == NPYG_EINVAL && npyg_ra_validate(ctx) == NPYG_EINVAL,
             "NULL read callback");
    TU_CHECK(npyg_set_input_pread(ctx, NULL, NULL, 5) == NPYG_EINVAL && npyg_probe_input(ctx) == NPYG_EINVAL,
             "NULL pread callback");
    TU_CHECK(npyg_set_input_fd(ctx, -1) == NPYG_EINVAL && npyg_validate(ctx) == NPYG_EIO, "fd -1: EIO from the call");
    int dir = open("/", O_RDONLY | O_DIRECTORY);
    npyg_set_input_fd(ctx, dir);
    TU_CHECK(npyg_validate(ctx) == NPYG_ENOTREG, "a directory");
    close(dir);
    int null = open("/dev/null", O_RDONLY);
    npyg_set_input_fd(ctx, null);
    TU_CHECK(npyg_open(ctx) == NPYG_ENOTREG && npyg_get_info(ctx) == NULL, "a character device");
    close(null);

    /* Results belong to the call that made them. A .ra file of one int8
       (eltype 1, elbyte 1, size 1, no dims) and its byte. */
    unsigned char ra[49] = "rawarray";
    ra[16] = 1, ra[24] = 1, ra[32] = 1, ra[48] = 42;
    npyg_set_input_buffer(ctx, ra, sizeof ra);
    TU_CHECK(npyg_probe_input(ctx) == 0 && npyg_get_probe_info(ctx) &&
                 npyg_get_probe_info(ctx)->format == NPYG_FORMAT_RA, "probe of a .ra header");
    TU_CHECK(npyg_ra_validate(ctx) == 0 && npyg_get_probe_info(ctx) == NULL && npyg_get_ra_info(ctx),
             "the next call forgets the probe's info");
    TU_CHECK(npyg_pickle_scan(ctx, NULL) != 0 && npyg_get_pickle_report(ctx) != NULL,
             "a scan of bytes that are no pickle still reports");
    TU_CHECK(npyg_validate(ctx) == NPYG_EMAGIC && npyg_get_pickle_report(ctx) == NULL,
             "the next call frees the report");
    /* The input stays set: the same buffer again, same verdict. */
    TU_CHECK(npyg_validate(ctx) == NPYG_EMAGIC && npyg_ra_validate(ctx) == 0, "the input stays set between calls");

    /* The input forms whose result is handed out: a report the caller
       frees, a probe info copied; a missing out-pointer is NPYG_EINVAL. A
       bare pickle of None (NONE, STOP: pickletools.dis names two opcodes). */
    tu_current = "input forms";
    npyg_pickle_report *r = NULL;
    TU_CHECK(npyg_pickle_scan_buffer(ctx, "N.", 2, NULL, &r) == 0 && r && r->length == 2 && r->opcodes == 2,
             "bare pickle from a buffer");
    npyg_pickle_report_free(ctx, r);
    feed f = {(const unsigned char *)"N.", 2, 0};
    r = NULL;
    TU_CHECK(npyg_pickle_scan_read(ctx, one_byte, &f, NULL, &r) == 0 && r && r->length == 2 && r->opcodes == 2,
             "bare pickle from a callback");
    npyg_pickle_report_free(ctx, r);
    TU_CHECK(npyg_pickle_scan_buffer(ctx, "N.", 2, NULL, NULL) == NPYG_EINVAL &&
                 npyg_pickle_scan_read(ctx, one_byte, &f, NULL, NULL) == NPYG_EINVAL &&
                 npyg_pickle_scan_npy_buffer(ctx, "N.", 2, NULL, NULL) == NPYG_EINVAL,
             "no report pointer");
    npyg_probe_info pi;
    f.pos = 0;
    TU_CHECK(npyg_probe(ctx, one_byte_at, &f, 2, NULL) == NPYG_EINVAL, "no info pointer");
    TU_CHECK(npyg_probe(ctx, one_byte_at, &f, 2, &pi) == 0 && pi.format == NPYG_FORMAT_UNKNOWN, "probe of two bytes");
    TU_CHECK(npyg_probe_buffer(ctx, ra, sizeof ra, &pi) == 0 && pi.format == NPYG_FORMAT_RA, "probe of a .ra buffer");

    /* The names of 0.2 give what their replacements give. */
    tu_current = "names of 0.2";
    npyg_set_input_buffer(ctx, ra, sizeof ra);
    TU_CHECK(npyg_ra_validate(ctx) == 0 && npyg_ra_get_info(ctx) == npyg_get_ra_info(ctx) && npyg_ra_get_info(ctx),
             "npyg_ra_get_info");
    for (int id = 0; id < NPYG_LIMIT_END_; id++) {
        uint64_t v = 1;
        TU_CHECK(npyg_limit_value(ctx, (npyg_limit)id, &v) == 0 && npyg_get_limit(ctx, (npyg_limit)id) == v,
                 "npyg_get_limit of limit %d", id);
    }
    TU_CHECK(npyg_get_limit(ctx, NPYG_LIMIT_END_) == 0 && npyg_get_limit(NULL, NPYG_LIMIT_MAX_DIMS) == 0,
             "npyg_get_limit's 0 for what it cannot say");
    static const struct {
        npyg_warning_set set;
        const char *(*text)(unsigned);
        const char *(*name)(unsigned);
    } old[] = {{NPYG_WARNINGS_NPY, npyg_warning_string, npyg_warning_name},
               {NPYG_WARNINGS_ZIP, npyg_zip_warning_string, npyg_zip_warning_name},
               {NPYG_WARNINGS_PROBE, npyg_probe_warning_string, NULL}};
    for (size_t k = 0; k < sizeof old / sizeof old[0]; k++)
        for (unsigned bit = 1; bit; bit <<= 1) {
            const npyg_warning_desc *w = npyg_warning_info(old[k].set, bit);
            TU_CHECK(!strcmp(old[k].text(bit), w ? w->text : "unknown warning"), "set %d bit %#x: text",
                     (int)old[k].set, bit);
            if (old[k].name)
                TU_CHECK(w ? !strcmp(old[k].name(bit), w->name) : old[k].name(bit) == NULL, "set %d bit %#x: name",
                         (int)old[k].set, bit);
        }
    npyg_ctx_free(ctx);
}

/* ---------------- the corpus ---------------- */

static void each_file(const char *dir, const json_t *files, void (*fn)(const char *, const char *, const json_t *))
{
    const char *name;
    json_t *e;
    json_object_foreach((json_t *)files, name, e) fn(dir, name, e);
}

static void npy_each(const char *dir, const char *name, const json_t *e) { (void)dir; npy_file(name, e); }

int main(int argc, char **argv)
{
    if (tu_bad_args(argc, 3, "test_input CORPUSDIR DIVERGENCES.TSV")) return 2;
    corpus = argv[1];
    if (tu_divs_load(&divergences, argv[2]) != 0) return 1;
    signal(SIGPIPE, SIG_IGN);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal; /* no SA_RESTART: a blocked read(2) fails with EINTR */
    sigaction(SIGUSR1, &sa, NULL);
    tmp_fd = mkstemp(tmp_path);
    if (tmp_fd < 0) return 1;

    api_rules();

    char dir[4096];
    json_t *m = tu_load_manifest(corpus);
    if (!m) return 1;
    json_t *files = json_object_get(m, "files");
    each_file(corpus, files, npy_each);
    TU_AT_LEAST(npy_files, json_object_size(files), ".npy files through every input");
    TU_AT_LEAST(npy_loaded, 100, ".npy payloads loaded from a file and hashed");
    const char *name;
    json_t *e;
    size_t valid_npy = 0;
    json_object_foreach(files, name, e) {
        if (!strcmp(json_string_value(json_object_get(e, "group")), "valid")) {
            probe_file(corpus, name, 0, NPYG_FORMAT_NPY);
            if (valid_npy++ < 40) interrupted(corpus, name, false);
        }
    }
    json_decref(m);

    snprintf(dir, sizeof dir, "%s/ra", corpus);
    if (!(m = tu_load_manifest(dir))) return 1;
    files = json_object_get(m, "files");
    each_file(dir, files, ra_file);
    TU_AT_LEAST(ra_files, json_object_size(files), ".ra files through every input");
    TU_AT_LEAST(ra_loaded, 40, ".ra arrays loaded from a file and hashed");
    size_t valid_ra = 0;
    json_object_foreach(files, name, e) {
        if (!strcmp(json_string_value(json_object_get(e, "group")), "valid")) {
            probe_file(dir, name, 0, NPYG_FORMAT_RA);
            if (valid_ra++ < 20) interrupted(dir, name, true);
        }
    }
    json_decref(m);

    snprintf(dir, sizeof dir, "%s/npz", corpus);
    if (!(m = tu_load_manifest(dir))) return 1;
    files = json_object_get(m, "files");
    each_file(dir, files, npz_file);
    TU_AT_LEAST(npz_files, json_object_size(files), ".npz files through every input");
    json_object_foreach(files, name, e) {
        if (!strcmp(json_string_value(json_object_get(e, "group")), "valid")) probe_file(dir, name, 0, NPYG_FORMAT_NPZ);
    }
    json_decref(m);

    /* HDF5 and MAT files: the code the manifest gives for the ones
       recognition refuses (MAT v5, v4, a malformed MAT header, a
       polyglot), else HDF5 (behind a MAT header for .mat), or nothing
       known for a file without a superblock. */
    snprintf(dir, sizeof dir, "%s/hdf5", corpus);
    if (!(m = tu_load_manifest(dir))) return 1;
    files = json_object_get(m, "files");
    size_t hdf5 = 0;
    json_object_foreach(files, name, e) {
        int err = (int)json_integer_value(json_object_get(e, "error"));
        bool refused = err == NPYG_EMAT_V5 || err == NPYG_EMAT_V4 || err == NPYG_EMAT_HEADER || err == NPYG_EPOLYGLOT;
        size_t n = strlen(name);
        int format = refused ? -1 : err == NPYG_EHDF5_NOTHDF5 ? NPYG_FORMAT_UNKNOWN
                   : n > 4 && !strcmp(name + n - 4, ".mat") ? NPYG_FORMAT_MAT73 : NPYG_FORMAT_HDF5;
        probe_file(dir, name, refused ? err : 0, format);
        hdf5++;
    }
    TU_AT_LEAST(hdf5, json_object_size(files), "HDF5 and MAT files recognised through every input");
    json_decref(m);

    snprintf(dir, sizeof dir, "%s/pickle", corpus);
    if (!(m = tu_load_manifest(dir))) return 1;
    files = json_object_get(m, "files");
    each_file(dir, files, pickle_file);
    TU_AT_LEAST(pickles, json_object_size(files), "object arrays scanned through every input");
    json_decref(m);

    TU_AT_LEAST(interrupted_files, 18, "files read from an interrupted pipe");
    TU_CHECK(signals_sent > 0, "no signal was sent");
    printf("test_input: %zu .npy, %zu .ra, %zu .npz, %zu recognised, %zu pickles, each through %d inputs; "
           "%u signals on %zu interrupted pipes\n",
           npy_files, ra_files, npz_files, probed, pickles, K_COUNT, signals_sent, interrupted_files);
    close(tmp_fd);
    unlink(tmp_path);
    tu_divs_free(&divergences);
    return tu_finish();
}
