/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The two-step load (npyg_open_* then npyg_read_payload, and the archive
 * member form) against the corpus manifests written with numpy:
 *  - every file numpy wrote and npyguard accepts loads, through a buffer,
 *    a descriptor and a chunked callback, to the payload whose SHA-256
 *    numpy recorded;
 *  - every file the manifest says npyguard refuses gives that code, and
 *    the same code and offset as the one-call validation;
 *  - every .npz member loads to numpy's payload, or the archive or member
 *    fails with the manifest's code;
 *  - each allocation failing in turn gives NPYG_ENOMEM and leaks nothing;
 *  - reading out of turn gives NPYG_EBADSTATE;
 *  - every input with a callback that fails or over-reads at each stage,
 *    a payload sink that stops, trailing bytes, descriptors at an offset,
 *    past the end or not a file, and unusable arguments.
 *
 * usage: test_load CORPUS_DIR
 */
#include "testutil.h"

#include <fcntl.h>
#include <jansson.h>
#include <openssl/evp.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static void sha256_hex(const void *p, size_t n, char out[65])
{
    unsigned char md[32];
    unsigned len = 0;
    EVP_Digest(p, n, md, &len, EVP_sha256(), NULL);
    for (int i = 0; i < 32; i++) sprintf(out + 2 * i, "%02x", md[i]);
}

enum input { IN_BUFFER, IN_FD, IN_READ };
static const char *const input_name[] = {"buffer", "fd", "read"};

typedef struct result {
    int code;
    uint64_t offset;
    char sha[65];
} result;

/* Opens and reads one file through one input; the payload's hash on success. */
static void load_one(npyg_ctx *ctx, const char *path, const unsigned char *buf, size_t len, enum input in,
                     const json_t *e, result *r)
{
    memset(r, 0, sizeof *r);
    int fd = -1;
    tu_chunks ch = {.p = buf, .len = len, .seed = 7, .max = 977};
    if (in == IN_BUFFER) npyg_set_input_buffer(ctx, buf, len);
    else if (in == IN_FD) npyg_set_input_fd(ctx, fd = open(path, O_RDONLY));
    else npyg_set_input_read(ctx, tu_chunked_read, &ch);
    int rc = npyg_open(ctx);
    void *dst = NULL;
    if (!rc) {
        const npyg_info *info = npyg_get_info(ctx);
        TU_CHECK(info != NULL, "%s: no info after a successful open", input_name[in]);
        uint64_t n = info ? info->payload_bytes : 0;
        dst = malloc(n ? (size_t)n : 1);
        rc = npyg_read_payload(ctx, dst, (size_t)n);
        if (!rc) sha256_hex(dst, (size_t)n, r->sha);
        if (!rc && e) tu_check_fields(npyg_get_info(ctx), e); /* numpy's view of the header */
        TU_CHECK(rc != 0 || npyg_get_info(ctx) != NULL, "%s: no info after the read", input_name[in]);
    }
    if (rc) {
        TU_CHECK(npyg_get_info(ctx) == NULL, "%s: info left after %s", input_name[in], npyg_error_name(rc));
        r->offset = npyg_last_error(ctx)->offset;
        TU_CHECK(npyg_last_error(ctx)->code == rc, "last_error disagrees with the return");
    }
    r->code = rc;
    free(dst);
    if (fd >= 0) close(fd);
}

static void check_npy(const char *dir, const char *name, const json_t *e)
{
    char path[4096];
    size_t len;
    unsigned char *buf = tu_read_case(dir, name, path, &len);
    if (!buf) return;
    const char *err = json_string_value(json_object_get(e, "npyguard_error"));
    const char *sha = json_string_value(json_object_get(e, "payload_sha256"));
    npyg_ctx *ctx = npyg_ctx_new(NULL);
    npyg_set_input_buffer(ctx, buf, len);
    int vcode = npyg_validate(ctx);
    uint64_t voff = npyg_last_error(ctx)->offset;
    for (int in = IN_BUFFER; in <= IN_READ; in++) {
        result r;
        load_one(ctx, path, buf, len, (enum input)in, err ? NULL : e, &r);
        /* compat files npyguard refuses on purpose are listed in
           divergences.tsv and checked by test_corpus; here they only have
           to agree with the one-call validation. */
        bool divergent = !err && vcode && !strcmp(json_string_value(json_object_get(e, "group")), "compat");
        if (divergent) TU_CHECK(r.code == vcode, "%s: %s", input_name[in], npyg_error_name(r.code));
        else if (err) TU_CHECK(r.code == tu_code_of(err), "%s: %s, manifest says %s", input_name[in],
                           npyg_error_name(r.code), err);
        else TU_CHECK(r.code == 0 && sha && strcmp(r.sha, sha) == 0, "%s: %s, sha256 %s, numpy's %s",
                      input_name[in], npyg_error_name(r.code), r.sha, sha ? sha : "?");
        TU_CHECK(r.code == vcode && (!r.code || r.offset == voff),
                 "%s: %s at %llu, one-call validation %s at %llu", input_name[in], npyg_error_name(r.code),
                 (unsigned long long)r.offset, npyg_error_name(vcode), (unsigned long long)voff);
    }
    npyg_ctx_free(ctx);
    free(buf);
}

typedef struct archive {
    npyg_ctx *ctx;
    const json_t *members; /* the manifest's, to compare payloads; NULL not to */
} archive;

/* One member through open_member / read_member. */
static int load_member(npyg_zip *z, size_t i, void *user)
{
    const archive *a = user;
    const npyg_zip_entry *ent = npyg_zip_member(z, i);
    int rc = npyg_zip_open_member(z, i);
    void *dst = NULL;
    size_t n = 0;
    if (!rc) {
        const npyg_info *info = npyg_get_info(a->ctx);
        n = info ? (size_t)info->payload_bytes : (size_t)ent->uncompressed_size;
        dst = malloc(n ? n : 1);
        rc = npyg_zip_read_member(z, dst, n);
    }
    if (!rc && a->members) {
        const json_t *jm = NULL;
        for (size_t k = 0; k < json_array_size(a->members); k++) {
            const json_t *c = json_array_get(a->members, k);
            if (!strcmp(json_string_value(json_object_get(c, "name")), ent->name)) jm = c;
        }
        const char *want = jm ? json_string_value(json_object_get(jm, "payload_sha256")) : NULL;
        if (want && npyg_get_info(a->ctx)) {
            char sha[65];
            sha256_hex(dst, n, sha);
            TU_CHECK(!strcmp(sha, want), "member %s: sha256 %s, numpy's %s", ent->name, sha, want);
        }
    }
    free(dst);
    return rc;
}

/* Every member of one archive through open_member / read_member. */
static int load_archive(npyg_ctx *ctx, const unsigned char *buf, size_t len, const json_t *e, char *failed,
                        size_t failed_size)
{
    archive a = {ctx, e ? json_object_get(e, "members") : NULL};
    return tu_zip_walk(ctx, buf, len, NULL, load_member, &a, failed, failed_size);
}

static void check_npz(const char *dir, const char *name, const json_t *e)
{
    char path[4096];
    size_t len;
    unsigned char *buf = tu_read_case(dir, name, path, &len);
    if (!buf) return;
    const char *err = json_string_value(json_object_get(e, "npyguard_error"));
    const char *member = json_string_value(json_object_get(e, "npyguard_error_member"));
    npyg_ctx *ctx = npyg_ctx_new(NULL);
    char failed[1024];
    int rc = load_archive(ctx, buf, len, e, failed, sizeof failed);
    TU_CHECK(rc == (err ? tu_code_of(err) : 0), "%s (member '%s'), manifest says %s", npyg_error_name(rc), failed,
             err ? err : "ok");
    if (err && member) TU_CHECK(!strcmp(failed, member), "failed in '%s', manifest says '%s'", failed, member);
    npyg_ctx_free(ctx);
    free(buf);
}

static void for_each(const char *dir, void (*fn)(const char *, const char *, const json_t *))
{
    json_t *root = tu_load_manifest(dir);
    if (!root) { tu_failed++; return; }
    const char *key;
    json_t *v;
    size_t n = 0;
    json_object_foreach(json_object_get(root, "files"), key, v) {
        fn(dir, key, v);
        n++;
    }
    TU_AT_LEAST(n, json_object_size(json_object_get(root, "files")), dir);
    printf("%s/manifest.json: %zu files\n", dir, n);
    json_decref(root);
}

/* ---------------- allocation failures, one at a time ---------------- */
typedef struct one_case {
    const char *path;
    const unsigned char *buf;
    size_t len;
} one_case;

/* Each input in turn, until one fails. */
static int load_inputs(npyg_ctx *ctx, tu_alloc *cnt, void *user)
{
    (void)cnt;
    const one_case *c = user;
    result r = {0};
    for (int in = IN_BUFFER; in <= IN_READ && !r.code; in++)
        load_one(ctx, c->path, c->buf, c->len, (enum input)in, NULL, &r);
    return r.code;
}

static int load_archive_bounded(npyg_ctx *ctx, tu_alloc *cnt, void *user)
{
    const one_case *c = user;
    char failed[1024];
    int first = load_archive(ctx, c->buf, c->len, NULL, failed, sizeof failed);
    npyg_limits lim;
    npyg_limits_default(&lim);
    uint64_t wc = npyg_zip_worst_case_alloc(&lim, NULL);
    TU_CHECK(cnt->peak <= wc, "peak %llu over the bound %llu", (unsigned long long)cnt->peak, (unsigned long long)wc);
    return first;
}

static void torture(const char *dir, const char *name, bool is_archive)
{
    char path[4096];
    size_t len;
    unsigned char *buf = tu_read_case(dir, name, path, &len);
    if (!buf) return;
    one_case c = {path, buf, len};
    tu_torture(name, is_archive ? load_archive_bounded : load_inputs, &c);
    free(buf);
}

/* The library's bound on its own allocations holds for the load too: the
   caller's payload buffer is the caller's. */
static void bound(const char *dir, const char *name)
{
    char path[4096];
    size_t len;
    unsigned char *buf = tu_read_case(dir, name, path, &len);
    if (!buf) return;
    npyg_limits lim;
    npyg_limits_default(&lim);
    tu_alloc cnt;
    tu_alloc_init(&cnt, UINT64_MAX);
    npyg_alloc al = tu_allocator(&cnt);
    npyg_options opt = {.alloc = &al, .limits = &lim};
    npyg_ctx *ctx = npyg_ctx_new(&opt);
    result r;
    for (int in = IN_BUFFER; in <= IN_READ; in++) {
        load_one(ctx, path, buf, len, (enum input)in, NULL, &r);
        TU_CHECK(r.code == 0, "%s", npyg_error_name(r.code));
    }
    uint64_t wc = npyg_worst_case_alloc(&lim);
    TU_CHECK(wc > 0 && cnt.peak <= wc, "peak %llu, worst case %llu", (unsigned long long)cnt.peak,
             (unsigned long long)wc);
    npyg_ctx_free(ctx);
    free(buf);
}

/* ---------------- reading out of turn ---------------- */
static void bad_state(const char *dir)
{
    char path[4096];
    size_t len;
    unsigned char *buf = tu_read_as("EBADSTATE", dir, "valid/f8-le-2d-F-v1.npy", path, &len);
    if (!buf) return;
    npyg_ctx *ctx = npyg_ctx_new(NULL);
    double d[12];
    TU_CHECK(npyg_read_payload(ctx, d, sizeof d) == NPYG_EBADSTATE, "read before any open");
    TU_CHECK(npyg_last_error(ctx)->code == NPYG_EBADSTATE, "last_error");
    npyg_set_input_buffer(ctx, buf, 5);
    TU_CHECK(npyg_open(ctx) == NPYG_ETRUNC_PREAMBLE, "truncated open");
    TU_CHECK(npyg_read_payload(ctx, d, sizeof d) == NPYG_EBADSTATE, "read after a failed open");
    npyg_set_input_buffer(ctx, buf, len - 1);
    TU_CHECK(npyg_open(ctx) == NPYG_ETRUNC_PAYLOAD, "payload cut by one: refused at open");
    TU_CHECK(npyg_read_payload(ctx, d, sizeof d) == NPYG_EBADSTATE, "read after a payload refused at open");
    npyg_set_input_buffer(ctx, buf, len);
    TU_CHECK(npyg_open(ctx) == 0, "open");
    TU_CHECK(npyg_read_payload(ctx, d, sizeof d - 1) == NPYG_EINVAL, "wrong size");
    TU_CHECK(npyg_read_payload(ctx, d, sizeof d) == 0, "read after a wrong size");
    TU_CHECK(npyg_read_payload(ctx, d, sizeof d) == NPYG_EBADSTATE, "second read");
    TU_CHECK(npyg_get_info(ctx) != NULL, "info kept after a refused second read");
    npyg_set_input_buffer(ctx, buf, len);
    TU_CHECK(npyg_open(ctx) == 0, "reopen");
    npyg_set_input_buffer(ctx, buf, len);
    TU_CHECK(npyg_validate(ctx) == 0, "validate in between");
    TU_CHECK(npyg_read_payload(ctx, d, sizeof d) == NPYG_EBADSTATE, "read after another call forgot the open");
    /* A pipe cut inside the payload fails at the read, and stays failed. */
    tu_chunks ch = {.p = buf, .len = len - 3, .seed = 1, .max = 64};
    npyg_set_input_read(ctx, tu_chunked_read, &ch);
    TU_CHECK(npyg_open(ctx) == 0, "open a cut stream");
    TU_CHECK(npyg_read_payload(ctx, d, sizeof d) == NPYG_ETRUNC_PAYLOAD, "cut stream read");
    TU_CHECK(npyg_last_error(ctx)->offset == len - 3, "offset %llu", (unsigned long long)npyg_last_error(ctx)->offset);
    TU_CHECK(npyg_read_payload(ctx, d, sizeof d) == NPYG_EBADSTATE, "read after a fatal error");
    TU_CHECK(npyg_read_payload(NULL, d, sizeof d) == NPYG_EINVAL, "NULL ctx");
    TU_CHECK(npyg_zip_read_member(NULL, d, sizeof d) == NPYG_EINVAL, "NULL archive");
    free(buf);

    snprintf(path, sizeof path, "%s/npz/valid/versions-123.npz", dir);
    buf = tu_slurp(path, &len);
    if (!buf) { TU_CHECK(0, "cannot read"); npyg_ctx_free(ctx); return; }
    npyg_zip *z = NULL;
    npyg_set_input_buffer(ctx, buf, len);
    TU_CHECK(npyg_zip_open(ctx, NULL, &z) == 0, "open archive");
    float f[5];
    TU_CHECK(npyg_zip_read_member(z, f, sizeof f) == NPYG_EBADSTATE, "member read before open_member");
    TU_CHECK(npyg_zip_open_member(z, 0) == 0, "open member");
    TU_CHECK(npyg_get_info(ctx) && npyg_get_info(ctx)->payload_bytes == sizeof f, "member info before the read");
    TU_CHECK(npyg_zip_read_member(z, f, sizeof f + 1) == NPYG_EINVAL, "member read, wrong size");
    TU_CHECK(npyg_zip_read_member(z, f, sizeof f) == 0, "member read after a wrong size");
    TU_CHECK(npyg_zip_read_member(z, f, sizeof f) == NPYG_EBADSTATE, "member read twice");
    TU_CHECK(npyg_zip_open_member(z, 99) == NPYG_EINVAL, "no such member");
    TU_CHECK(npyg_zip_read_member(z, f, sizeof f) == NPYG_EBADSTATE, "member read after a failed open");
    npyg_zip_close(z);
    npyg_ctx_free(ctx);
    free(buf);
}

/* ---------------- inputs, callbacks and sinks ---------------- */
/* The bytes np.save writes for np.zeros(n, np.uint8), n of 5 digits: a
   128-byte version 1.0 header, then n zeros (compared byte for byte with
   numpy 1.24's output for n = 70000 with /usr/bin/python3); extra bytes
   0xEE after them. */
static unsigned char *zeros_npy(size_t n, size_t extra, size_t *len)
{
    *len = 128 + n + extra;
    unsigned char *p = calloc(*len, 1);
    if (!p) return NULL;
    char head[129];
    int k = snprintf(head, sizeof head, "\x93NUMPY\x01%cv%c{'descr': '|u1', 'fortran_order': False, 'shape': (%zu,), }",
                     0, 0, n);
    memset(p, ' ', 128);
    memcpy(p, head, (size_t)k);
    p[127] = '\n';
    for (size_t i = 0; i < extra; i++) p[128 + n + i] = 0xEE;
    return p;
}

typedef struct cbsrc {
    const unsigned char *p;
    size_t len, pos;
    size_t fail_at; /* -1 from here on; SIZE_MAX never */
    bool over;      /* hand out one byte more than asked */
    bool fired;
} cbsrc;

static long long cb_src(void *user, void *buf, size_t n)
{
    cbsrc *s = user;
    if (s->pos >= s->fail_at) {
        s->fired = true;
        return -1;
    }
    size_t k = s->len - s->pos < n ? s->len - s->pos : n;
    if (s->fail_at != SIZE_MAX && s->pos + k > s->fail_at) k = s->fail_at - s->pos; /* stop where it fails */
    memcpy(buf, s->p + s->pos, k);
    s->pos += k;
    return s->over ? (long long)n + 1 : (long long)k;
}

/* Input 0: the buffer p of len bytes; 1: the descriptor fd; 2: the
   callback over r. */
static void set_input(npyg_ctx *ctx, int input, const void *p, size_t len, int fd, cbsrc *r)
{
    if (input == 0) npyg_set_input_buffer(ctx, p, len);
    else if (input == 1) npyg_set_input_fd(ctx, fd);
    else npyg_set_input_read(ctx, cb_src, r);
}

typedef struct sinkst {
    uint64_t bytes;
    uint64_t stop_after; /* fail the call that would pass this many bytes */
    unsigned calls;
    EVP_MD_CTX *md;
} sinkst;

static int sink_fn(void *user, const void *p, size_t n)
{
    sinkst *s = user;
    s->calls++;
    if (s->bytes + n > s->stop_after) return 1;
    s->bytes += n;
    if (s->md) EVP_DigestUpdate(s->md, p, n);
    return 0;
}

static int temp_fd(const unsigned char *p, size_t n, size_t skip)
{
    FILE *f = tmpfile();
    int fd = f ? dup(fileno(f)) : -1;
    if (f) fclose(f);
    if (fd < 0) return -1;
    for (size_t i = 0; i < skip; i++)
        if (write(fd, "x", 1) != 1) { close(fd); return -1; }
    if (write(fd, p, n) != (ssize_t)n || lseek(fd, (off_t)skip, SEEK_SET) != (off_t)skip) {
        close(fd);
        return -1;
    }
    return fd;
}

static npyg_ctx *ctx_profile(npyg_profile prof)
{
    npyg_options o = {.profile = prof};
    return npyg_ctx_new(&o);
}

static void inputs_and_sinks(void)
{
    tu_current = "inputs and sinks";
    size_t n = 70000, len, tlen;
    unsigned char *npy = zeros_npy(n, 0, &len);
    unsigned char *tail = zeros_npy(n, 100000, &tlen); /* numpy.load reads n items and ignores the rest */
    npyg_ctx *ctx = npyg_ctx_new(NULL), *sctx = ctx_profile(NPYG_PROFILE_STRICT);
    unsigned char *dst = malloc(n);
    if (!npy || !tail || !ctx || !sctx || !dst) { TU_CHECK(0, "setup"); goto out; }

    npyg_set_input_buffer(sctx, npy, len);
    TU_CHECK(npyg_validate(sctx) == 0, "zeros(%zu, u1) strict: %s", n, npyg_last_error(sctx)->message);

    /* A callback that claims more bytes than it was asked for breaks its
       contract: a read error, never bytes taken on trust. */
    cbsrc s = {npy, len, 0, SIZE_MAX, true, false};
    npyg_set_input_read(ctx, cb_src, &s);
    TU_CHECK(npyg_validate(ctx) == NPYG_EIO, "over-long callback read");
    s = (cbsrc){npy, len, 0, SIZE_MAX, true, false};
    npyg_set_input_read(ctx, cb_src, &s);
    TU_CHECK(npyg_open(ctx) == NPYG_EIO, "over-long callback read, open");

    /* The callback fails at each position: in the preamble, the header,
       the payload, or past it (the trailing check) -- always NPYG_EIO. */
    size_t cuts[] = {0, 3, 8, 9, 60, 128, 129, 128 + 65536, 128 + 65537, len, len + 5, len + 70000};
    for (int input = 0; input < 2; input++)
        for (size_t k = 0; k < sizeof cuts / sizeof cuts[0]; k++) {
            const unsigned char *p = input ? tail : npy;
            size_t l = input ? tlen : len;
            if (cuts[k] > l) continue;
            s = (cbsrc){p, l, 0, cuts[k], false, false};
            npyg_set_input_read(ctx, cb_src, &s);
            int rc = npyg_validate(ctx);
            TU_CHECK(rc == NPYG_EIO, "validate_read failing at %zu of %zu: %s", cuts[k], l, npyg_error_name(rc));
            s = (cbsrc){p, l, 0, cuts[k], false, false};
            npyg_set_input_read(ctx, cb_src, &s);
            rc = npyg_open(ctx);
            if (rc == 0) rc = npyg_read_payload(ctx, dst, n);
            TU_CHECK(rc == NPYG_EIO && s.fired, "open_read + read_payload failing at %zu of %zu: %s", cuts[k], l,
                     npyg_error_name(rc));
        }

    /* Trailing bytes (numpy ignores them): a warning under the numpy
       profile, NPYG_ETRAILING under strict, from every input. */
    for (int input = 0; input < 3; input++) {
        for (int strict = 0; strict < 2; strict++) {
            npyg_ctx *x = strict ? sctx : ctx;
            int fd = input == 1 ? temp_fd(tail, tlen, 0) : -1;
            cbsrc r = {tail, tlen, 0, SIZE_MAX, false, false};
            set_input(x, input, tail, tlen, fd, &r);
            int rc = npyg_open(x);
            if (rc == 0) rc = npyg_read_payload(x, dst, n);
            const npyg_info *in = npyg_get_info(x);
            if (strict) TU_CHECK(rc == NPYG_ETRAILING, "input %d strict: %s", input, npyg_error_name(rc));
            else TU_CHECK(rc == 0 && in && (in->warnings & NPYG_W_TRAILING) && in->trailing_bytes > 0 &&
                              (input == 2 || in->trailing_bytes == 100000),
                          "input %d: %s, trailing %llu", input, npyg_error_name(rc),
                          in ? (unsigned long long)in->trailing_bytes : 0ull);
            if (input == 2 && !strict) TU_CHECK(in && in->trailing_bytes == 100000, "callback: all trailing bytes counted");
            /* and the one-call validation agrees */
            r = (cbsrc){tail, tlen, 0, SIZE_MAX, false, false};
            set_input(x, input, tail, tlen, fd, &r);
            int vrc = npyg_validate(x);
            TU_CHECK(vrc == rc, "input %d %s: validation %s, load %s", input, strict ? "strict" : "numpy",
                     npyg_error_name(vrc), npyg_error_name(rc));
            if (fd >= 0) close(fd);
        }
    }

    /* The sink sees every payload byte once, in chunks of at most 64 KiB,
       whichever input and call; a sink that stops gives NPYG_EIO. */
    unsigned char want[32], got[32];
    unsigned wl = 0, gl = 0;
    EVP_Digest(npy + 128, n, want, &wl, EVP_sha256(), NULL);
    for (int input = 0; input < 3; input++) {
        for (int call = 0; call < 3; call++) { /* validate, load into dst, load to the sink only */
            for (int stop = 0; stop < 3; stop++) {
                uint64_t stop_after = stop == 0 ? UINT64_MAX : stop == 1 ? 0 : 65536;
                sinkst sk = {0, stop_after, 0, EVP_MD_CTX_new()};
                EVP_DigestInit_ex(sk.md, EVP_sha256(), NULL);
                npyg_set_payload_sink(ctx, sink_fn, &sk);
                int fd = input == 1 ? temp_fd(npy, len, 0) : -1;
                cbsrc r = {npy, len, 0, SIZE_MAX, false, false};
                set_input(ctx, input, npy, len, fd, &r);
                int rc = call == 0 ? npyg_validate(ctx) : npyg_open(ctx);
                if (call && rc == 0) rc = npyg_read_payload(ctx, call == 1 ? dst : NULL, n);
                npyg_set_payload_sink(ctx, NULL, NULL);
                EVP_DigestFinal_ex(sk.md, got, &gl);
                EVP_MD_CTX_free(sk.md);
                if (fd >= 0) close(fd);
                if (stop == 0)
                    TU_CHECK(rc == 0 && sk.bytes == n && sk.calls >= 2 && !memcmp(got, want, 32),
                             "input %d call %d: %s, sink saw %llu bytes in %u calls", input, call, npyg_error_name(rc),
                             (unsigned long long)sk.bytes, sk.calls);
                else
                    TU_CHECK(rc == NPYG_EIO && npyg_get_info(ctx) == NULL, "input %d call %d: sink stops after %llu: %s",
                             input, call, (unsigned long long)stop_after, npyg_error_name(rc));
            }
        }
    }

    /* A descriptor is read from its position: an archive of bytes before
       the file is no concern, and a position past the end is an empty input. */
    int fd = temp_fd(npy, len, 100);
    npyg_set_input_fd(ctx, fd);
    TU_CHECK(fd >= 0 && npyg_validate(ctx) == 0, "file 100 bytes into the descriptor");
    if (fd >= 0) {
        lseek(fd, 100 + (off_t)len + 10, SEEK_SET);
        npyg_set_input_buffer(ctx, "", 0);
        int want_rc = npyg_validate(ctx);
        TU_CHECK(want_rc == NPYG_ETRUNC_PREAMBLE, "empty buffer: %s", npyg_error_name(want_rc));
        npyg_set_input_fd(ctx, fd);
        TU_CHECK(npyg_validate(ctx) == want_rc, "position past the end: %s", npyg_last_error(ctx)->message);
        npyg_set_input_fd(ctx, fd);
        TU_CHECK(npyg_open(ctx) == want_rc, "open, position past the end");
        close(fd);
    }
    /* a regular file cut inside the header */
    fd = temp_fd(npy, 100, 0);
    npyg_set_input_fd(ctx, fd);
    TU_CHECK(fd >= 0 && npyg_validate(ctx) == NPYG_ETRUNC_HEADER, "file cut inside the header");
    if (fd >= 0) close(fd);
    /* neither a regular file nor a pipe */
    fd = open("/dev/null", O_RDONLY);
    npyg_set_input_fd(ctx, fd);
    TU_CHECK(fd >= 0 && npyg_validate(ctx) == NPYG_ENOTREG && npyg_open(ctx) == NPYG_ENOTREG, "character device");
    if (fd >= 0) close(fd);
    TU_CHECK(npyg_set_input_fd(ctx, -1) == NPYG_EINVAL && npyg_validate(ctx) == NPYG_EIO && npyg_open(ctx) == NPYG_EIO,
             "bad descriptor");

    /* max_header_bytes holds for every input */
    npyg_limits lim;
    npyg_limits_default(&lim);
    lim.max_header_bytes = 64;
    npyg_options o = {.limits = &lim};
    npyg_ctx *lctx = npyg_ctx_new(&o);
    s = (cbsrc){npy, len, 0, SIZE_MAX, false, false};
    npyg_set_input_buffer(lctx, npy, len);
    TU_CHECK(lctx && npyg_validate(lctx) == NPYG_ELIMIT_HEADER, "max_header_bytes 64 against a 118-byte header");
    npyg_set_input_read(lctx, cb_src, &s);
    TU_CHECK(npyg_open(lctx) == NPYG_ELIMIT_HEADER, "max_header_bytes 64, a callback");
    npyg_ctx_free(lctx);

    /* arguments that cannot be used */
    TU_CHECK(npyg_set_input_buffer(NULL, npy, len) == NPYG_EINVAL && npyg_set_input_read(NULL, cb_src, &s) == NPYG_EINVAL &&
                 npyg_set_input_fd(NULL, 0) == NPYG_EINVAL && npyg_validate(NULL) == NPYG_EINVAL &&
                 npyg_parse_header(NULL, npy, len) == NPYG_EINVAL && npyg_open(NULL) == NPYG_EINVAL,
             "NULL context");
    TU_CHECK(npyg_set_input_buffer(ctx, NULL, 5) == NPYG_EINVAL && npyg_validate(ctx) == NPYG_EINVAL &&
                 npyg_open(ctx) == NPYG_EINVAL && npyg_parse_header(ctx, NULL, 5) == NPYG_EINVAL,
             "NULL buffer with a length");
    TU_CHECK(npyg_set_input_read(ctx, NULL, NULL) == NPYG_EINVAL && npyg_validate(ctx) == NPYG_EINVAL &&
                 npyg_open(ctx) == NPYG_EINVAL,
             "NULL callback");
    TU_CHECK(npyg_parse_header(ctx, npy, 128) == 0 && npyg_get_info(ctx)->payload_bytes == n, "header only");
    /* no buffer and no length is an empty input */
    TU_CHECK(npyg_set_input_buffer(ctx, NULL, 0) == 0 && npyg_validate(ctx) == NPYG_ETRUNC_PREAMBLE &&
                 npyg_open(ctx) == NPYG_ETRUNC_PREAMBLE && npyg_parse_header(ctx, NULL, 0) == NPYG_ETRUNC_PREAMBLE,
             "NULL buffer of length 0");
    /* a descriptor number that is not open */
    fd = dup(2);
    close(fd);
    npyg_set_input_fd(ctx, fd);
    TU_CHECK(npyg_validate(ctx) == NPYG_EIO && npyg_open(ctx) == NPYG_EIO, "closed descriptor");
    /* a socket is read like a pipe */
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0) {
        bool sent = write(sv[1], npy, 4096) == 4096;
        close(sv[1]);
        npyg_set_input_fd(ctx, sv[0]);
        TU_CHECK(sent && npyg_validate(ctx) == NPYG_ETRUNC_PAYLOAD &&
                     npyg_last_error(ctx)->offset == 4096,
                 "socket holding the first 4096 bytes: %s", npyg_error_name(npyg_last_error(ctx)->code));
        close(sv[0]);
    }
    /* a regular file with trailing bytes, the payload to a sink: counted from the file's size */
    fd = temp_fd(tail, tlen, 0);
    sinkst sk = {0, UINT64_MAX, 0, NULL};
    npyg_set_payload_sink(ctx, sink_fn, &sk);
    npyg_set_input_fd(ctx, fd);
    TU_CHECK(fd >= 0 && npyg_validate(ctx) == 0 && npyg_get_info(ctx)->trailing_bytes == 100000 && sk.bytes == n,
             "file with trailing bytes, to a sink");
    sk.bytes = 0;
    npyg_set_input_fd(ctx, fd);
    TU_CHECK(fd >= 0 && npyg_open(ctx) == 0 && npyg_read_payload(ctx, NULL, 0) == 0 &&
                 npyg_get_info(ctx)->trailing_bytes == 100000 && sk.bytes == n,
             "file with trailing bytes, loaded to a sink");
    npyg_set_payload_sink(ctx, NULL, NULL);
    if (fd >= 0) close(fd);
out:
    free(dst);
    free(npy);
    free(tail);
    npyg_ctx_free(ctx);
    npyg_ctx_free(sctx);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s CORPUS_DIR\n", argv[0]);
        return 2;
    }
    char d[4096];
    for_each(argv[1], check_npy);
    snprintf(d, sizeof d, "%s/npz", argv[1]);
    for_each(d, check_npz);
    torture(argv[1], "valid/f8-le-2d-F-v1.npy", false);
    torture(argv[1], "valid/struct-deep-subarray-le-1d-C-v1.npy", false);
    torture(d, "valid/savez-compressed-several.npz", true);
    bound(argv[1], "valid/f8-le-2d-F-v1.npy");
    bad_state(argv[1]);
    inputs_and_sinks();
    return tu_finish();
}
