/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Checks the RawArray reader against corpus/ra/manifest.json, whose header
 * fields and SHA-256s gen/gen_ra.py derived from the format's text, numpy
 * and liblz4 (never from npyguard):
 *  - every file through the buffer, descriptor and callback inputs: the
 *    expected code, and for valid files every header field, the type name
 *    and the SHA-256 of the data segment as stored (through the sink);
 *  - the allocation bound: an allocator that refuses past
 *    npyg_ra_worst_case_alloc() is never refused, under the default limits
 *    and under limits shrunk to each file (max_payload_bytes = its data);
 *  - max_payload_bytes one byte under a file's data is refused as a limit;
 *  - a 16 MiB LZ4 file is refused under the default max_alloc_bytes and
 *    decoded within the bound once the limit allows it;
 *  - every strict prefix of a valid file without metadata is refused;
 *  - every allocation failing in turn is reported, never crashes or leaks;
 *  - .ra and .npy entry points refuse each other's files; codes 90-100
 *    have a name, a class and a text;
 *  - the two-step load (npyg_ra_open_*, npyg_ra_read_data) through the
 *    three inputs: every valid file's data equal to the array numpy laid
 *    out (array_sha256: the LZ4 ones decoded), every other file refused
 *    with the validation's code, offset and message, within the same
 *    allocation bound; a wrong-size buffer, calls out of order, and every
 *    allocation failing in turn.
 * Usage: test_ra CORPUS_RA_DIR
 */
#include "npyguard.h"
#include "testutil.h"

#include <fcntl.h>
#include <jansson.h>
#include <openssl/evp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int sha_sink(void *user, const void *data, size_t len)
{
    return EVP_DigestUpdate((EVP_MD_CTX *)user, data, len) == 1 ? 0 : 1;
}

enum input { IN_BUFFER, IN_FD, IN_CALLBACK };
static const char *const input_names[] = {"buffer", "fd", "callback"};

typedef struct run {
    int rc;
    npyg_ra_info info;      /* copied; dims copied below */
    uint64_t dims[64];
    char sha[65];
    tu_alloc alloc; /* the context's allocator: cap the bound, peak, refused, now what leaked */
} run;

/* One validation through one input; ch feeds the callback input. */
static int validate_input(npyg_ctx *ctx, const unsigned char *buf, size_t len, const char *path, enum input how,
                          tu_chunks *ch)
{
    int fd = how == IN_FD ? open(path, O_RDONLY) : -1;
    if (how == IN_BUFFER) npyg_set_input_buffer(ctx, buf, len);
    else if (how == IN_FD) npyg_set_input_fd(ctx, fd);
    else npyg_set_input_read(ctx, tu_chunked_read, ch);
    int rc = npyg_ra_validate(ctx);
    if (fd >= 0) close(fd);
    return rc;
}

/* A context under limits lim whose allocator refuses past their bound. */
static npyg_ctx *bounded_ctx(const npyg_limits *lim, tu_alloc *cnt, npyg_alloc *al)
{
    tu_alloc_init(cnt, npyg_ra_worst_case_alloc(lim));
    *al = tu_allocator(cnt);
    npyg_options opt = {.limits = lim, .alloc = al};
    npyg_ctx *ctx = npyg_ctx_new(&opt);
    TU_CHECK(ctx != NULL, "ctx");
    return ctx;
}

static void hex(EVP_MD_CTX *md, char out[65])
{
    unsigned char d[32];
    unsigned int dl;
    EVP_DigestFinal_ex(md, d, &dl);
    for (int k = 0; k < 32; k++) snprintf(out + 2 * k, 3, "%02x", d[k]);
}

/* One validation under limits lim, on an allocator capped at the bound. */
static void validate(const unsigned char *buf, size_t len, const char *path, enum input how,
                     const npyg_limits *lim, run *out)
{
    memset(out, 0, sizeof *out);
    npyg_alloc al;
    npyg_ctx *ctx = bounded_ctx(lim, &out->alloc, &al);
    if (!ctx) return;
    EVP_MD_CTX *md = EVP_MD_CTX_new();
    EVP_DigestInit_ex(md, EVP_sha256(), NULL);
    npyg_set_payload_sink(ctx, sha_sink, md);
    tu_chunks ch = {buf, len, 0, 11, 4096};
    out->rc = validate_input(ctx, buf, len, path, how, &ch);
    TU_CHECK(out->rc == 0 || npyg_last_error(ctx)->code == out->rc, "%s: last error %d, returned %d",
             input_names[how], npyg_last_error(ctx)->code, out->rc);
    const npyg_ra_info *in = npyg_get_ra_info(ctx);
    TU_CHECK((out->rc == 0) == (in != NULL), "%s: info %s after %s", input_names[how], in ? "present" : "absent",
             npyg_error_name(out->rc));
    TU_CHECK(npyg_get_info(ctx) == NULL, "%s: .npy info after a .ra call", input_names[how]);
    if (in) {
        out->info = *in;
        for (uint32_t k = 0; k < in->ndims && k < 64; k++) out->dims[k] = in->dims[k];
    }
    hex(md, out->sha);
    EVP_MD_CTX_free(md);
    npyg_ctx_free(ctx);
}

static void check_fields(const run *r, const json_t *e, const char *how)
{
    const npyg_ra_info *in = &r->info;
    TU_CHECK(in->flags == tu_json_u64(json_object_get(e, "flags")), "%s: flags %llu", how, (unsigned long long)in->flags);
    TU_CHECK(in->eltype == tu_json_u64(json_object_get(e, "eltype")), "%s: eltype", how);
    TU_CHECK(in->elbyte == tu_json_u64(json_object_get(e, "elbyte")), "%s: elbyte", how);
    TU_CHECK(in->size == tu_json_u64(json_object_get(e, "size")), "%s: size %llu", how, (unsigned long long)in->size);
    TU_CHECK(in->ndims == tu_json_u64(json_object_get(e, "ndims")), "%s: ndims %u", how, in->ndims);
    const json_t *dims = json_object_get(e, "dims");
    bool same = json_array_size(dims) == in->ndims;
    for (uint32_t k = 0; same && k < in->ndims && k < 64; k++) same = tu_json_u64(json_array_get(dims, k)) == r->dims[k];
    TU_CHECK(same, "%s: dims differ", how);
    TU_CHECK(in->big_endian == !strcmp(json_string_value(json_object_get(e, "endianness")), "big"), "%s: endianness", how);
    TU_CHECK(in->compressed == json_is_true(json_object_get(e, "compressed")), "%s: compressed", how);
    TU_CHECK(in->count == tu_json_u64(json_object_get(e, "count")), "%s: count", how);
    TU_CHECK(in->data_offset == tu_json_u64(json_object_get(e, "data_offset")), "%s: data_offset", how);
    TU_CHECK(in->data_bytes == tu_json_u64(json_object_get(e, "data_bytes")), "%s: data_bytes", how);
    TU_CHECK(in->metadata_bytes == tu_json_u64(json_object_get(e, "metadata_bytes")), "%s: metadata_bytes %llu", how,
             (unsigned long long)in->metadata_bytes);
    char name[64];
    npyg_ra_type_name(in, name, sizeof name);
    TU_CHECK(!strcmp(name, json_string_value(json_object_get(e, "type"))), "%s: type %s", how, name);
    TU_CHECK(((in->warnings & NPYG_W_LONGDOUBLE) != 0) == json_is_true(json_object_get(e, "platform_dependent")),
             "%s: long double warning", how);
    TU_CHECK(!strcmp(r->sha, json_string_value(json_object_get(e, "data_sha256"))), "%s: data sha256 %s", how, r->sha);
}

static void check_bound(const run *r, const char *how)
{
    const tu_alloc *a = &r->alloc;
    TU_CHECK(a->refused == 0 && a->peak <= a->cap, "%s: allocation bound: peak %llu, bound %llu, refused %u", how,
             (unsigned long long)a->peak, (unsigned long long)a->cap, a->refused);
    TU_CHECK(a->now == 0, "%s: %llu bytes leaked", how, (unsigned long long)a->now);
}

/* ---------------- the two-step load ---------------- */
typedef struct loaded {
    int rc;
    npyg_error err;
    uint64_t data_bytes, metadata_bytes;
    tu_alloc alloc; /* as in run */
    char sha[65], stored_sha[65]; /* of the data read, of what the sink saw */
} loaded;

static int open_input(npyg_ctx *ctx, const unsigned char *buf, size_t len, int fd, enum input how, tu_chunks *ch)
{
    if (how == IN_BUFFER) npyg_set_input_buffer(ctx, buf, len);
    else if (how == IN_FD) npyg_set_input_fd(ctx, fd);
    else npyg_set_input_read(ctx, tu_chunked_read, ch);
    return npyg_ra_open(ctx);
}

/* Open, then the data into a buffer of exactly data_bytes. */
static void load(const unsigned char *buf, size_t len, const char *path, enum input how, const npyg_limits *lim,
                 loaded *out)
{
    memset(out, 0, sizeof *out);
    npyg_alloc al;
    npyg_ctx *ctx = bounded_ctx(lim, &out->alloc, &al);
    if (!ctx) return;
    EVP_MD_CTX *stored = EVP_MD_CTX_new(), *md = EVP_MD_CTX_new();
    EVP_DigestInit_ex(stored, EVP_sha256(), NULL);
    EVP_DigestInit_ex(md, EVP_sha256(), NULL);
    npyg_set_payload_sink(ctx, sha_sink, stored);
    tu_chunks ch = {buf, len, 0, 11, 4096};
    int fd = how == IN_FD ? open(path, O_RDONLY) : -1;
    out->rc = open_input(ctx, buf, len, fd, how, &ch);
    const npyg_ra_info *in = npyg_get_ra_info(ctx);
    TU_CHECK((out->rc == 0) == (in != NULL), "%s: info after open: %s", input_names[how], npyg_error_name(out->rc));
    if (in) {
        out->data_bytes = in->data_bytes;
        unsigned char *dst = malloc(in->data_bytes ? (size_t)in->data_bytes : 1);
        out->rc = dst ? npyg_ra_read_data(ctx, dst, (size_t)in->data_bytes) : -1;
        if (out->rc == 0) {
            EVP_DigestUpdate(md, dst, (size_t)in->data_bytes);
            out->metadata_bytes = npyg_get_ra_info(ctx)->metadata_bytes;
        }
        free(dst);
    }
    out->err = *npyg_last_error(ctx);
    if (fd >= 0) close(fd);
    hex(stored, out->stored_sha);
    hex(md, out->sha);
    EVP_MD_CTX_free(stored);
    EVP_MD_CTX_free(md);
    npyg_ctx_free(ctx);
}

/* A valid file loads to the array's bytes; any other gets the code,
   offset and message its validation gets. The 16 MiB LZ4 file, refused by
   validation for the decoding room it needs, loads: its output is the
   caller's buffer. */
static void check_load(const unsigned char *buf, size_t len, const char *path, const json_t *e, int want)
{
    npyg_limits lim;
    npyg_limits_default(&lim);
    bool loads = want == 0 || want == NPYG_ELIMIT_ALLOC;
    for (int how = IN_BUFFER; how <= IN_CALLBACK; how++) {
        npyg_ctx *ctx = npyg_ctx_new(NULL);
        tu_chunks ch = {buf, len, 0, 11, 4096};
        validate_input(ctx, buf, len, path, (enum input)how, &ch);
        npyg_error verr = *npyg_last_error(ctx);
        npyg_ctx_free(ctx);
        loaded r;
        load(buf, len, path, (enum input)how, &lim, &r);
        const char *in = input_names[how];
        TU_CHECK(r.alloc.refused == 0 && r.alloc.peak <= r.alloc.cap && r.alloc.now == 0,
                 "load, %s: peak %llu, bound %llu, %u refused, %llu leaked", in, (unsigned long long)r.alloc.peak,
                 (unsigned long long)r.alloc.cap, r.alloc.refused, (unsigned long long)r.alloc.now);
        if (loads) {
            TU_CHECK(r.rc == 0, "load, %s: %s (%s)", in, npyg_error_name(r.rc), r.err.message);
            TU_CHECK(!strcmp(r.sha, json_string_value(json_object_get(e, "array_sha256"))), "load, %s: data sha256 %s", in, r.sha);
            TU_CHECK(!strcmp(r.stored_sha, json_string_value(json_object_get(e, "data_sha256"))), "load, %s: sink sha256", in);
            if (want == 0)
                TU_CHECK(r.metadata_bytes == tu_json_u64(json_object_get(e, "metadata_bytes")), "load, %s: metadata", in);
            else
                TU_CHECK(r.data_bytes == tu_json_u64(json_object_get(e, "decodes_to")) && r.alloc.peak < r.data_bytes,
                         "load, %s: %llu bytes decoded with %llu held", in, (unsigned long long)r.data_bytes,
                         (unsigned long long)r.alloc.peak);
        } else {
            TU_CHECK(r.rc == want && r.err.offset == verr.offset && !strcmp(r.err.message, verr.message),
                     "load, %s: %s at %llu '%s'; validation: %s at %llu '%s'", in, npyg_error_name(r.rc),
                     (unsigned long long)r.err.offset, r.err.message, npyg_error_name(verr.code),
                     (unsigned long long)verr.offset, verr.message);
        }
    }
}

static void check_file(const char *dir, const char *name, const json_t *e)
{
    char path[4096];
    size_t len;
    unsigned char *buf = tu_read_case(dir, name, path, &len);
    if (!buf) return;
    const char *group = json_string_value(json_object_get(e, "group"));
    const char *ecode = json_string_value(json_object_get(e, "npyguard_error"));
    bool is_valid = !strcmp(group, "valid");
    TU_CHECK(is_valid == (ecode == NULL), "group %s with%s an expected code", group, ecode ? "" : "out");
    int want = ecode ? tu_code_of(ecode) : 0;
    TU_CHECK(want >= 0, "unknown code %s", ecode);

    npyg_limits lim;
    npyg_limits_default(&lim);
    for (int how = IN_BUFFER; how <= IN_CALLBACK; how++) {
        run r;
        validate(buf, len, path, (enum input)how, &lim, &r);
        TU_CHECK(r.rc == want, "%s: got %s, want %s", input_names[how], npyg_error_name(r.rc), npyg_error_name(want));
        if (r.rc == 0 && want == 0) check_fields(&r, e, input_names[how]);
        check_bound(&r, input_names[how]);
    }
    check_load(buf, len, path, e, want);

    if (is_valid) {
        /* Limits shrunk to this file: the bound is then small and real. */
        npyg_limits tight;
        npyg_limits_default(&tight);
        uint64_t data = tu_json_u64(json_object_get(e, "data_bytes"));
        tight.max_payload_bytes = data ? data : 1;
        tight.max_dims = 64;
        for (int how = IN_BUFFER; how <= IN_CALLBACK; how++) {
            run r;
            validate(buf, len, path, (enum input)how, &tight, &r);
            TU_CHECK(r.rc == 0, "tight limits, %s: %s", input_names[how], npyg_error_name(r.rc));
            TU_CHECK(r.alloc.cap < tight.max_alloc_bytes, "tight bound %llu is the cap", (unsigned long long)r.alloc.cap);
            check_bound(&r, "tight limits");
        }
        if (data) {
            tight.max_payload_bytes = data - 1;
            run r;
            validate(buf, len, path, IN_BUFFER, &tight, &r);
            TU_CHECK(r.rc == NPYG_ELIMIT_PAYLOAD, "max_payload_bytes one under the data: %s", npyg_error_name(r.rc));
        }
        uint64_t ndims = tu_json_u64(json_object_get(e, "ndims"));
        if (ndims) {
            npyg_limits fewer;
            npyg_limits_default(&fewer);
            fewer.max_dims = (uint32_t)ndims - (ndims > 1);
            if (ndims > 1) {
                run r;
                validate(buf, len, path, IN_BUFFER, &fewer, &r);
                TU_CHECK(r.rc == NPYG_ELIMIT_DIMS, "max_dims one under ndims: %s", npyg_error_name(r.rc));
            }
        }
        if (tu_json_u64(json_object_get(e, "metadata_bytes")) == 0) {
            npyg_ctx *ctx = npyg_ctx_new(NULL);
            size_t accepted = 0;
            for (size_t cut = 0; cut < len && cut < 8192; cut++) {
                npyg_set_input_buffer(ctx, buf, cut);
                if (npyg_ra_validate(ctx) == 0) accepted++;
            }
            TU_CHECK(accepted == 0, "%zu strict prefixes accepted", accepted);
            npyg_ctx_free(ctx);
        }
        /* The .npy entry point refuses a .ra file at its magic. */
        npyg_ctx *ctx = npyg_ctx_new(NULL);
        npyg_set_input_buffer(ctx, buf, len);
        TU_CHECK(npyg_validate(ctx) == NPYG_EMAGIC, ".npy reader on a .ra file");
        TU_CHECK(npyg_get_ra_info(ctx) == NULL, ".ra info after a .npy call");
        npyg_ctx_free(ctx);
        TU_CHECK(npyg_is_ra(buf, len) == 1, "npyg_is_ra");
    }

    /* The 16 MiB LZ4 file decodes once max_alloc_bytes allows it. */
    const json_t *dec = json_object_get(e, "decodes_to");
    if (dec) {
        npyg_limits big;
        npyg_limits_default(&big);
        big.max_alloc_bytes = 64u << 20;
        big.max_payload_bytes = tu_json_u64(dec);
        for (int how = IN_BUFFER; how <= IN_CALLBACK; how++) {
            run r;
            validate(buf, len, path, (enum input)how, &big, &r);
            TU_CHECK(r.rc == 0, "%s with room: %s", input_names[how], npyg_error_name(r.rc));
            TU_CHECK(r.info.data_bytes == tu_json_u64(dec), "decoded size");
            TU_CHECK(!strcmp(r.sha, json_string_value(json_object_get(e, "data_sha256"))), "data sha256");
            check_bound(&r, "with room");
            TU_CHECK(r.alloc.peak > tu_json_u64(dec), "the decoded bytes were held: peak %llu", (unsigned long long)r.alloc.peak);
        }
    }
    free(buf);
}

/* ---------------- allocation failures, one at a time ---------------- */
typedef struct one_input {
    const unsigned char *buf;
    size_t len;
    const char *path;
    enum input how;
} one_input;

static int validate_one_input(npyg_ctx *ctx, tu_alloc *cnt, void *user)
{
    (void)cnt;
    const one_input *c = user;
    tu_chunks ch = {c->buf, c->len, 0, 3, 64};
    return validate_input(ctx, c->buf, c->len, c->path, c->how, &ch);
}

/* Open and read as one run, every allocation failing in turn. */
static int load_one_input(npyg_ctx *ctx, tu_alloc *cnt, void *user)
{
    (void)cnt;
    const one_input *c = user;
    tu_chunks ch = {c->buf, c->len, 0, 3, 64};
    int fd = c->how == IN_FD ? open(c->path, O_RDONLY) : -1;
    int rc = open_input(ctx, c->buf, c->len, fd, c->how, &ch);
    if (!rc) {
        size_t n = (size_t)npyg_get_ra_info(ctx)->data_bytes;
        void *dst = malloc(n ? n : 1);
        rc = npyg_ra_read_data(ctx, dst, n);
        free(dst);
    }
    if (fd >= 0) close(fd);
    return rc;
}

/* step (a validation or a load) through the three inputs, every
   allocation failing in turn. */
static void torture(const char *dir, const char *name, const char *what,
                    int (*step)(npyg_ctx *ctx, tu_alloc *cnt, void *user))
{
    char path[4096];
    size_t len;
    unsigned char *buf = tu_read_case(dir, name, path, &len);
    if (!buf) return;
    for (int how = IN_BUFFER; how <= IN_CALLBACK; how++) {
        char label[256];
        snprintf(label, sizeof label, "%s (%s, %s)", name, what, input_names[how]);
        one_input c = {buf, len, path, (enum input)how};
        tu_torture(label, step, &c);
    }
    free(buf);
}

/* call refuses an input with nothing behind it: a NULL buffer of n bytes
   and a NULL callback with NPYG_EINVAL, descriptor -1 with NPYG_EIO. */
static void refuses_no_input(npyg_ctx *ctx, int (*call)(npyg_ctx *), size_t n, const char *what)
{
    npyg_set_input_buffer(ctx, NULL, n);
    TU_CHECK(call(ctx) == NPYG_EINVAL, "%s: NULL buffer", what);
    npyg_set_input_read(ctx, NULL, NULL);
    TU_CHECK(call(ctx) == NPYG_EINVAL, "%s: NULL callback", what);
    npyg_set_input_fd(ctx, -1);
    TU_CHECK(call(ctx) == NPYG_EIO, "%s: bad descriptor", what);
}

/* The load's contract: exactly data_bytes, once, after a successful open. */
static void load_api(const char *dir)
{
    char path[4096];
    size_t len;
    unsigned char *buf = tu_read_as("load api", dir, "valid/f32-lz4-2d.ra", path, &len);
    if (!buf) return;
    npyg_ctx *ctx = npyg_ctx_new(NULL);
    unsigned char dst[3072 + 1];
    TU_CHECK(npyg_ra_read_data(NULL, dst, 1) == NPYG_EINVAL && npyg_ra_open(NULL) == NPYG_EINVAL, "NULL context");
    TU_CHECK(npyg_ra_read_data(ctx, dst, 3072) == NPYG_EBADSTATE, "read before any open");
    refuses_no_input(ctx, npyg_ra_open, 1, "open");
    npyg_set_input_buffer(ctx, NULL, 0);
    TU_CHECK(npyg_ra_open(ctx) == NPYG_ERA_TRUNC_HEADER, "no buffer, no bytes: an empty file");
    TU_CHECK(npyg_ra_read_data(ctx, dst, 3072) == NPYG_EBADSTATE, "read after a failed open");
    npyg_set_input_buffer(ctx, buf, len);
    TU_CHECK(npyg_ra_open(ctx) == 0 && npyg_get_ra_info(ctx)->data_bytes == 3072, "open");
    TU_CHECK(npyg_read_payload(ctx, dst, 3072) == NPYG_EBADSTATE, "the .npy read after a .ra open");
    TU_CHECK(npyg_ra_read_data(ctx, dst, 3071) == NPYG_EINVAL && npyg_ra_read_data(ctx, dst, 3073) == NPYG_EINVAL,
             "a buffer one byte short or long");
    TU_CHECK(npyg_get_ra_info(ctx) != NULL, "the file stays open after a wrong size");
    TU_CHECK(npyg_ra_read_data(ctx, dst, 3072) == 0, "then the right size: %s", npyg_last_error(ctx)->message);
    TU_CHECK(npyg_ra_read_data(ctx, dst, 3072) == NPYG_EBADSTATE, "a second read");
    /* dst NULL: validation's data step, to the sink only. */
    npyg_set_input_buffer(ctx, buf, len);
    TU_CHECK(npyg_ra_open(ctx) == 0 && npyg_ra_read_data(ctx, NULL, 0) == 0 &&
                 npyg_get_ra_info(ctx)->metadata_bytes == 0,
             "no buffer: %s", npyg_last_error(ctx)->message);
    snprintf(path, sizeof path, "%s/valid/f32-metadata.ra", dir);
    size_t mlen;
    unsigned char *meta = tu_slurp(path, &mlen);
    if (meta) {
        npyg_set_input_buffer(ctx, meta, mlen);
        TU_CHECK(npyg_ra_open(ctx) == 0 && npyg_ra_read_data(ctx, NULL, 0) == 0 &&
                     npyg_get_ra_info(ctx)->metadata_bytes == 27,
                 "no buffer, plain data: %s", npyg_last_error(ctx)->message);
        free(meta);
    }
    /* A corrupt block found while reading: no info afterwards. */
    unsigned char *bad = malloc(len);
    memcpy(bad, buf, len);
    bad[64] = 0xFF; /* the first token: more literals than the block holds */
    npyg_set_input_buffer(ctx, bad, len);
    TU_CHECK(npyg_ra_open(ctx) == 0, "a corrupt block opens (its header is valid)");
    int rc = npyg_ra_read_data(ctx, dst, 3072);
    TU_CHECK(rc == NPYG_ERA_LZ4 || rc == NPYG_ERA_LZ4_SIZE, "then fails to decode: %s", npyg_error_name(rc));
    TU_CHECK(npyg_get_ra_info(ctx) == NULL, "no info after a failed read");
    free(bad);
    /* A .ra read after a .npy open refuses too. */
    snprintf(path, sizeof path, "%s/../valid/f8-le-2d-F-v1.npy", dir);
    size_t nlen;
    unsigned char *npy = tu_slurp(path, &nlen);
    if (npy) {
        npyg_set_input_buffer(ctx, npy, nlen);
        TU_CHECK(npyg_open(ctx) == 0 && npyg_ra_read_data(ctx, dst, 96) == NPYG_EBADSTATE,
                 "the .ra read after a .npy open");
        free(npy);
    }
    /* Through a pipe the size is unknown: a file cut inside its data opens,
       and the read says it is truncated, where validation says so. */
    int p[2];
    if (pipe(p) == 0) {
        TU_CHECK(write(p[1], buf, len - 10) == (ssize_t)(len - 10), "pipe write");
        close(p[1]);
        npyg_set_input_fd(ctx, p[0]);
        TU_CHECK(npyg_ra_open(ctx) == 0, "a cut file opens from a pipe");
        rc = npyg_ra_read_data(ctx, dst, 3072);
        TU_CHECK(rc == NPYG_ERA_TRUNC_DATA, "and is truncated: %s", npyg_error_name(rc));
        close(p[0]);
    }
    npyg_ctx_free(ctx);
    free(buf);
}

static void api(const char *dir)
{
    tu_current = "api";
    for (int c = 90; c <= 100; c++) {
        TU_CHECK(strncmp(npyg_error_name(c), "NPYG_ERA_", 9) == 0, "name of %d", c);
        TU_CHECK(!strcmp(npyg_error_class(c), "ra"), "class of %d", c);
        TU_CHECK(strcmp(npyg_strerror(c), "unknown error code") != 0, "text of %d", c);
    }
    TU_CHECK(!strcmp(npyg_error_name(101), "?"), "101 is not a code yet");
    TU_CHECK(npyg_sniff_format("rawarray", 8) == NPYG_FORMAT_RA && npyg_sniff_format("rawarra", 7) == NPYG_FORMAT_UNKNOWN,
             "npyg_sniff_format recognises the magic");
    TU_CHECK(npyg_is_ra("rawarray", 8) && !npyg_is_ra("rawarra", 7) && !npyg_is_ra("rawarraX", 8) && !npyg_is_ra(NULL, 0),
             "npyg_is_ra");
    npyg_limits lim;
    npyg_limits_default(&lim);
    uint64_t b = npyg_ra_worst_case_alloc(&lim);
    TU_CHECK(b == lim.max_alloc_bytes, "default bound is max_alloc_bytes (an LZ4 file may use it all): %llu",
             (unsigned long long)b);
    lim.max_payload_bytes = 0;
    uint64_t small = npyg_ra_worst_case_alloc(&lim);
    TU_CHECK(small > npyg_worst_case_alloc(&lim) / 64 && small < (1u << 20), "bound with no payload: %llu",
             (unsigned long long)small);
    printf("npyg_ra_worst_case_alloc: defaults %llu, max_payload_bytes 0: %llu\n", (unsigned long long)b,
           (unsigned long long)small);
    lim.max_dims = 0;
    TU_CHECK(npyg_ra_worst_case_alloc(&lim) == 0, "invalid limits");

    npyg_ctx *ctx = npyg_ctx_new(NULL);
    npyg_set_input_buffer(NULL, "", 0);
    TU_CHECK(npyg_ra_validate(NULL) == NPYG_EINVAL, "NULL ctx");
    refuses_no_input(ctx, npyg_ra_validate, 5, "validate");
    int fd = open("/dev/null", O_RDONLY);
    npyg_set_input_fd(ctx, fd);
    TU_CHECK(npyg_ra_validate(ctx) == NPYG_ENOTREG, "character device");
    close(fd);
    TU_CHECK(npyg_ra_validate(NULL) == NPYG_EINVAL, "NULL ctx");
    npyg_set_input_buffer(ctx, NULL, 0);
    TU_CHECK(npyg_ra_validate(ctx) == NPYG_ERA_TRUNC_HEADER, "no buffer, no bytes: an empty file");
    TU_CHECK(npyg_get_ra_info(NULL) == NULL, "npyg_get_ra_info(NULL)");
    npyg_set_input_buffer(ctx, "\x93NUMPY\x01\x00", 8);
    TU_CHECK(npyg_ra_validate(ctx) == NPYG_ERA_MAGIC, ".npy magic");
    TU_CHECK(npyg_get_ra_info(ctx) == NULL, "no info after an error");

    /* A sink that refuses stops validation with NPYG_EIO. */
    char path[4096];
    snprintf(path, sizeof path, "%s/valid/f32-le-2d.ra", dir);
    size_t len;
    unsigned char *buf = tu_slurp(path, &len);
    if (buf) {
        npyg_set_payload_sink(ctx, NULL, NULL);
        npyg_set_input_buffer(ctx, buf, len);
        TU_CHECK(npyg_ra_validate(ctx) == 0, "valid file");
        /* A .npy call afterwards forgets the .ra result. */
        npyg_set_input_buffer(ctx, "x", 1);
        npyg_validate(ctx);
        TU_CHECK(npyg_get_ra_info(ctx) == NULL, ".ra info survives a .npy call");
        free(buf);
    }
    /* Pipes: read to the end, metadata counted. */
    snprintf(path, sizeof path, "%s/valid/f32-metadata.ra", dir);
    buf = tu_slurp(path, &len);
    int p[2];
    if (buf && pipe(p) == 0) {
        TU_CHECK(write(p[1], buf, len) == (ssize_t)len, "pipe write");
        close(p[1]);
        npyg_set_input_fd(ctx, p[0]);
        TU_CHECK(npyg_ra_validate(ctx) == 0, "pipe");
        const npyg_ra_info *in = npyg_get_ra_info(ctx);
        TU_CHECK(in && in->metadata_bytes == 27, "metadata through a pipe");
        close(p[0]);
    }
    free(buf);
    npyg_ctx_free(ctx);
}

/* npyg_ra_type_name off the element table (npyguard.h: kind and bits, as
   the reference readers name them): no info and an unknown eltype are
   "?", a width whose bits overflow is the kind and "?". */
static void type_names(void)
{
    tu_current = "type names";
    char out[32];
    npyg_ra_info in;
    memset(&in, 0, sizeof in);
    TU_CHECK(npyg_ra_type_name(NULL, out, sizeof out) == 1 && !strcmp(out, "?"), "no info: '%s'", out);
    in.eltype = 6;
    in.elbyte = 4;
    TU_CHECK(npyg_ra_type_name(&in, out, sizeof out) == 1 && !strcmp(out, "?"), "eltype 6: '%s'", out);
    in.eltype = NPYG_RA_USER;
    in.elbyte = UINT64_MAX / 8 + 1;
    TU_CHECK(npyg_ra_type_name(&in, out, sizeof out) == 5 && !strcmp(out, "user?"), "user of 2**61 bytes: '%s'", out);
    in.elbyte = UINT64_MAX / 8;
    TU_CHECK(npyg_ra_type_name(&in, out, sizeof out) == strlen("user18446744073709551608") &&
                 !strcmp(out, "user18446744073709551608"),
             "user of 2**61 - 1 bytes: '%s'", out);
    in.eltype = NPYG_RA_COMPLEX;
    in.elbyte = 16;
    TU_CHECK(npyg_ra_type_name(&in, NULL, 0) == strlen("complex128"), "length only, no buffer");
    strcpy(out, "untouched");
    TU_CHECK(npyg_ra_type_name(&in, out, 0) == strlen("complex128") && !strcmp(out, "untouched"),
             "a buffer of size 0 is not written");
    TU_CHECK(npyg_ra_type_name(&in, out, 6) == strlen("complex128") && !strcmp(out, "compl"), "cut: '%s'", out);
}

/* The LZ4 file needs its compressed bytes and its output at once: with
   max_alloc_bytes exactly that (1 MiB and 4 KiB: room for the context
   and its read buffer), the bytes the context already holds put it over,
   and it is refused as a limit before the block is read. */
static void lz4_total(const char *dir, const json_t *m)
{
    tu_current = "lz4: held bytes plus the context's";
    const json_t *e = json_object_get(json_object_get(m, "files"), "valid/u8-zeros-lz4.ra");
    char path[4096];
    snprintf(path, sizeof path, "%s/valid/u8-zeros-lz4.ra", dir);
    size_t len;
    unsigned char *buf = tu_slurp(path, &len);
    if (!buf || !e) { TU_CHECK(0, "cannot read %s", path); free(buf); return; }
    npyg_limits lim;
    npyg_limits_default(&lim);
    lim.max_alloc_bytes = tu_json_u64(json_object_get(e, "size")) + tu_json_u64(json_object_get(e, "data_bytes"));
    npyg_options opt = {.limits = &lim};
    npyg_ctx *ctx = npyg_ctx_new(&opt);
    tu_chunks ch = {buf, len, 0, 5, 4096};
    npyg_set_input_read(ctx, tu_chunked_read, &ch);
    int rc = npyg_ra_validate(ctx);
    TU_CHECK(rc == NPYG_ELIMIT_ALLOC, "callback: %s", npyg_error_name(rc));
    npyg_ctx_free(ctx);
    free(buf);
}

static int refuse_sink(void *user, const void *data, size_t len)
{
    (void)user; (void)data; (void)len;
    return 1;
}

static void sink_stops(const char *dir)
{
    tu_current = "sink";
    const char *names[] = {"valid/f32-le-2d.ra", "valid/f32-lz4-2d.ra"};
    for (int k = 0; k < 2; k++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, names[k]);
        size_t len;
        unsigned char *buf = tu_slurp(path, &len);
        if (!buf) { TU_CHECK(0, "cannot read %s", path); continue; }
        npyg_ctx *ctx = npyg_ctx_new(NULL);
        npyg_set_payload_sink(ctx, refuse_sink, NULL);
        npyg_set_input_buffer(ctx, buf, len);
        TU_CHECK(npyg_ra_validate(ctx) == NPYG_EIO, "%s: sink refusal", names[k]);
        tu_chunks ch = {buf, len, 0, 7, 512};
        npyg_set_input_read(ctx, tu_chunked_read, &ch);
        TU_CHECK(npyg_ra_validate(ctx) == NPYG_EIO, "%s: sink refusal, callback", names[k]);
        npyg_ctx_free(ctx);
        free(buf);
    }
}

int main(int argc, char **argv)
{
    if (tu_bad_args(argc, 2, "test_ra CORPUS_RA_DIR")) return 2;
    json_t *m = tu_load_manifest(argv[1]);
    if (!m) return 2;
    const char *name;
    json_t *e;
    size_t n = 0;
    json_object_foreach(json_object_get(m, "files"), name, e) {
        check_file(argv[1], name, e);
        n++;
    }
    TU_AT_LEAST(n, 90, "corpus/ra files");
    torture(argv[1], "valid/f32-lz4-2d.ra", "torture", validate_one_input);
    torture(argv[1], "valid/u8-64d.ra", "torture", validate_one_input);
    torture(argv[1], "valid/f32-lz4-2d.ra", "load torture", load_one_input);
    torture(argv[1], "valid/f32-metadata.ra", "load torture", load_one_input);
    torture(argv[1], "valid/c64-lz4-metadata.ra", "load torture", load_one_input);
    load_api(argv[1]);
    api(argv[1]);
    sink_stops(argv[1]);
    type_names();
    lz4_total(argv[1], m);
    json_decref(m);
    printf("ra corpus: %zu files\n", n);
    return tu_finish();
}
