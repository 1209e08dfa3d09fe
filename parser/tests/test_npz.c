/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Checks the .npz reader against corpus/npz/manifest.json, whose zip and
 * numpy facts were measured by gen/gen_npz.py:
 *  - every archive through the buffer and the descriptor inputs: the
 *    expected error (code, and the member it belongs to) under the numpy
 *    and the strict profile; every member's zip fields as zipfile read
 *    them; for .npy members numpy reads, the header fields and the payload
 *    SHA-256 through the payload sink;
 *  - the allocation bound: an allocator that refuses past
 *    npyg_zip_worst_case_alloc() is never refused, nothing leaks;
 *  - every allocation failing in turn is reported, never crashes or leaks;
 *  - the 4 GiB bomb: refused at once under the default limits, and streamed
 *    to its end in bounded memory when the ratio limit is lifted;
 *  - every strict prefix of the manifest's prefix cases is refused;
 *  - each zip limit has its own code;
 *  - with --crafted, small archives each breaking one rule of the zip
 *    format (end records, zip64 records, extra fields, directory, local
 *    headers, data descriptors, layout, names, flags, sizes), from a
 *    buffer and from a descriptor at an offset.
 * Usage: test_npz CORPUS_NPZ_DIR [--corpus-only | --stream-bomb-only]
 *        test_npz --crafted [DUMP_DIR]
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
#include <time.h>
#include <unistd.h>
#include <zlib.h>

/* ---------------- helpers ---------------- */
static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Members whose numpy-read fields were compared, against the manifest's count. */
static size_t fields_checked, prefixes_checked;

static int sha_sink(void *user, const void *data, size_t len)
{
    return EVP_DigestUpdate((EVP_MD_CTX *)user, data, len) == 1 ? 0 : 1;
}

/* The manifest's member with these name bytes (hex): zipfile decodes
   names without the UTF-8 flag as cp437, npyguard keeps the bytes. */
static const json_t *manifest_member(const json_t *e, const char *name_hex)
{
    const json_t *ms = json_object_get(e, "members");
    for (size_t k = 0; k < json_array_size(ms); k++) {
        const json_t *m = json_array_get(ms, k);
        if (strcmp(json_string_value(json_object_get(m, "name_hex")), name_hex) == 0) return m;
    }
    return NULL;
}

/* ---------------- one archive, one input, one profile ---------------- */
typedef struct outcome {
    int code;           /* first error, 0 when every member validated */
    char member[1024];  /* its member, "" for the archive */
    uint64_t peak, bound;
    unsigned refused;
    uint64_t leaked;
} outcome;

static void walk(const unsigned char *buf, size_t len, const char *path, npyg_profile prof,
                 const npyg_zip_limits *zl, const json_t *e, outcome *out, size_t *fields)
{
    memset(out, 0, sizeof *out);
    npyg_limits lim;
    npyg_limits_default(&lim);
    tu_alloc cnt;
    tu_alloc_init(&cnt, npyg_zip_worst_case_alloc(&lim, zl));
    out->bound = cnt.cap;
    npyg_alloc al = tu_allocator(&cnt);
    npyg_options opt = {.profile = prof, .limits = &lim, .alloc = &al};
    npyg_ctx *ctx = npyg_ctx_new(&opt);
    TU_CHECK(ctx != NULL, "ctx");
    if (!ctx) return;
    npyg_zip *z = NULL;
    int fd = -1;
    int rc;
    if (path) {
        fd = open(path, O_RDONLY);
        npyg_set_input_fd(ctx, fd);
        rc = npyg_zip_open(ctx, zl, &z);
    } else {
        npyg_set_input_buffer(ctx, buf, len);
        rc = npyg_zip_open(ctx, zl, &z);
    }
    if (rc) {
        out->code = npyg_last_error(ctx)->code;
        TU_CHECK(out->code == rc && z == NULL, "open returned %d, last error %d", rc, out->code);
    }
    const json_t *ms = json_object_get(e, "members");
    bool zip_listed = e && !strcmp(json_string_value(json_object_get(json_object_get(e, "zipfile"), "verdict")), "accept");
    if (!rc && e && zip_listed)
        TU_CHECK(npyg_zip_count(z) == json_array_size(ms), "%zu members, zipfile lists %zu", npyg_zip_count(z),
              json_array_size(ms));
    for (size_t i = 0; !rc && i < npyg_zip_count(z); i++) {
        const npyg_zip_entry *m = npyg_zip_member(z, i);
        const json_t *jm = zip_listed ? json_array_get(ms, i) : NULL;
        char hex[2 * 1024 + 1] = "";
        for (size_t k = 0; k < m->name_len && k < 1024; k++) snprintf(hex + 2 * k, 3, "%02x", (unsigned char)m->name[k]);
        if (jm) {
            TU_CHECK(strcmp(hex, json_string_value(json_object_get(jm, "name_hex"))) == 0, "member %zu name %s", i,
                  m->name);
            TU_CHECK(m->method == tu_json_u64(json_object_get(jm, "method")) &&
                      m->compressed_size == tu_json_u64(json_object_get(jm, "compressed_size")) &&
                      m->uncompressed_size == tu_json_u64(json_object_get(jm, "uncompressed_size")) &&
                      m->crc32 == tu_json_u64(json_object_get(jm, "crc32")) &&
                      m->header_offset == tu_json_u64(json_object_get(jm, "header_offset")),
                  "member %s: zip fields differ from zipfile's", m->name);
        }
        EVP_MD_CTX *md = EVP_MD_CTX_new();
        EVP_DigestInit_ex(md, EVP_sha256(), NULL);
        npyg_set_payload_sink(ctx, sha_sink, md);
        int mrc = npyg_zip_validate_member(z, i);
        unsigned char d[32];
        unsigned int dl;
        EVP_DigestFinal_ex(md, d, &dl);
        EVP_MD_CTX_free(md);
        char sha[65];
        for (int k = 0; k < 32; k++) snprintf(sha + 2 * k, 3, "%02x", d[k]);
        if (mrc) {
            if (!out->code) {
                out->code = npyg_last_error(ctx)->code;
                snprintf(out->member, sizeof out->member, "%s", m->name);
            }
            TU_CHECK(npyg_get_info(ctx) == NULL, "info after a failure");
            continue;
        }
        const json_t *jn = e ? manifest_member(e, hex) : NULL;
        const npyg_info *in = npyg_get_info(ctx);
        if (jn && json_is_false(json_object_get(jn, "npy"))) {
            TU_CHECK(in == NULL && (m->warnings & NPYG_ZW_NOT_NPY), "non-npy member %s: info or no warning", m->name);
            TU_CHECK(!strcmp(json_string_value(json_object_get(jn, "numpy_returns")), "bytes"),
                  "numpy should return bytes for %s", m->name);
        } else if (jn && json_object_get(jn, "payload_sha256")) {
            TU_CHECK(in != NULL, "member %s: no info", m->name);
            if (in) {
                tu_check_fields(in, jn);
                const char *wsha = json_string_value(json_object_get(jn, "payload_sha256"));
                TU_CHECK(strcmp(sha, wsha) == 0, "member %s: payload sha256 %s", m->name, sha);
                if (fields) (*fields)++;
            }
        }
    }
    npyg_set_payload_sink(ctx, NULL, NULL);
    npyg_zip_close(z);
    if (fd >= 0) close(fd);
    npyg_ctx_free(ctx);
    out->peak = cnt.peak;
    out->refused = cnt.refused;
    out->leaked = cnt.now;
}

static void expect(const outcome *o, const json_t *e, const char *code_key, const char *member_key,
                   const char *how)
{
    const char *ecode = json_string_value(json_object_get(e, code_key));
    const char *emember = json_string_value(json_object_get(e, member_key));
    int want = ecode ? tu_code_of(ecode) : 0;
    TU_CHECK(o->code == want, "%s: got %s, want %s", how, npyg_error_name(o->code), npyg_error_name(want));
    if (want) TU_CHECK(strcmp(o->member, emember ? emember : "") == 0, "%s: error on member '%s', want '%s'", how,
                    o->member, emember ? emember : "");
    TU_CHECK(o->refused == 0 && o->peak <= o->bound, "%s: allocation bound: peak %llu, bound %llu, refused %u", how,
          (unsigned long long)o->peak, (unsigned long long)o->bound, o->refused);
    TU_CHECK(o->leaked == 0, "%s: leak of %llu bytes", how, (unsigned long long)o->leaked);
}

static void check_archive(const char *dir, const char *name, const json_t *e, const json_t *prefix_cases)
{
    char path[4096];
    size_t len;
    unsigned char *buf = tu_read_case(dir, name, path, &len);
    if (!buf) return;
    const char *group = json_string_value(json_object_get(e, "group"));
    if (!strcmp(group, "valid")) TU_CHECK(json_object_get(e, "npyguard_error") == NULL, "valid with an error");
    if (!strcmp(group, "invalid") || !strcmp(group, "unsafe"))
        TU_CHECK(json_object_get(e, "npyguard_error") != NULL, "%s file without an expected code", group);

    outcome o;
    walk(buf, len, NULL, NPYG_PROFILE_NUMPY, NULL, e, &o, &fields_checked);
    expect(&o, e, "npyguard_error", "npyguard_error_member", "buffer");
    walk(NULL, 0, path, NPYG_PROFILE_NUMPY, NULL, e, &o, NULL);
    expect(&o, e, "npyguard_error", "npyguard_error_member", "fd");
    walk(buf, len, NULL, NPYG_PROFILE_STRICT, NULL, e, &o, NULL);
    expect(&o, e, "npyguard_strict_error", "npyguard_strict_error_member", "strict");

    for (size_t k = 0; k < json_array_size(prefix_cases); k++) {
        if (strcmp(json_string_value(json_array_get(prefix_cases, k)), name) != 0) continue;
        size_t accepted = 0;
        for (size_t cut = 0; cut < len; cut++) {
            walk(buf, cut, NULL, NPYG_PROFILE_NUMPY, NULL, NULL, &o, NULL);
            if (o.code == 0) accepted++;
        }
        TU_CHECK(accepted == 0, "%zu strict prefixes accepted", accepted);
        prefixes_checked++;
    }
    free(buf);
}

/* ---------------- allocation failures, one at a time ---------------- */
typedef struct archive {
    const unsigned char *buf;
    size_t len;
} archive;

static int validate_archive(npyg_ctx *ctx, tu_alloc *cnt, void *user)
{
    (void)cnt;
    const archive *a = user;
    return tu_zip_walk(ctx, a->buf, a->len, NULL, NULL, NULL, NULL, 0);
}

static void torture(const char *dir, const char *name)
{
    char path[4096];
    size_t len;
    unsigned char *buf = tu_read_case(dir, name, path, &len);
    if (!buf) return;
    archive a = {buf, len};
    tu_torture(name, validate_archive, &a);
    free(buf);
}

/* ---------------- limits ---------------- */
static int first_error(const char *dir, const char *name, const npyg_zip_limits *zl, char *member, size_t msize)
{
    char path[4096];
    size_t len;
    unsigned char *buf = tu_read_case(dir, name, path, &len);
    if (!buf) return -1;
    npyg_ctx *ctx = npyg_ctx_new(NULL);
    int rc = tu_zip_walk(ctx, buf, len, zl, NULL, NULL, member, msize);
    npyg_ctx_free(ctx);
    free(buf);
    return rc;
}

static void check_limits(const char *dir)
{
    tu_current = "limits";
    npyg_zip_limits zl;
    npyg_zip_limits_default(&zl);
    zl.max_members = 9;
    TU_CHECK(first_error(dir, "valid/savez-several.npz", &zl, NULL, 0) == NPYG_ELIMIT_MEMBERS, "max_members");
    npyg_zip_limits_default(&zl);
    zl.max_name_bytes = 5;
    TU_CHECK(first_error(dir, "valid/savez-several.npz", &zl, NULL, 0) == NPYG_ELIMIT_NAME, "max_name_bytes");
    npyg_zip_limits_default(&zl);
    zl.max_total_uncompressed = 1000;
    TU_CHECK(first_error(dir, "valid/savez-several.npz", &zl, NULL, 0) == NPYG_ELIMIT_UNCOMPRESSED,
          "max_total_uncompressed");
    npyg_zip_limits_default(&zl);
    zl.max_ratio = 1;
    zl.ratio_grace_bytes = 0;
    TU_CHECK(first_error(dir, "valid/savez-compressed-several.npz", &zl, NULL, 0) == NPYG_ELIMIT_RATIO, "max_ratio");
    zl.ratio_grace_bytes = 1u << 20; /* small members pass under the grace */
    TU_CHECK(first_error(dir, "valid/savez-compressed-several.npz", &zl, NULL, 0) == 0, "ratio grace");
    TU_CHECK(first_error(dir, "valid/savez-several.npz", &zl, NULL, 0) == 0, "stored members have ratio 1");
    /* Invalid limits are refused, not clamped. */
    npyg_zip_limits_default(&zl);
    zl.max_ratio = 0;
    npyg_limits lim;
    npyg_limits_default(&lim);
    TU_CHECK(npyg_zip_worst_case_alloc(&lim, &zl) == 0, "worst case of invalid limits");
    TU_CHECK(first_error(dir, "valid/savez-several.npz", &zl, NULL, 0) == NPYG_EINVAL, "invalid limits");
    /* The default bound fits in the default max_alloc_bytes, with room. */
    uint64_t b = npyg_zip_worst_case_alloc(&lim, NULL);
    TU_CHECK(b > npyg_worst_case_alloc(&lim) && b < lim.max_alloc_bytes, "default bound %llu", (unsigned long long)b);
    printf("npyg_zip_worst_case_alloc(defaults) = %llu bytes\n", (unsigned long long)b);

    /* The API refuses what it cannot do. */
    npyg_ctx *ctx = npyg_ctx_new(NULL);
    npyg_zip *z = NULL;
    npyg_set_input_buffer(ctx, "PK\5\6", 4);
    TU_CHECK(npyg_zip_open(ctx, NULL, &z) == NPYG_EZIP_EOCD && z == NULL, "4-byte archive");
    npyg_set_input_buffer(ctx, "\x93NUMPY", 6);
    TU_CHECK(npyg_zip_open(ctx, NULL, &z) == NPYG_EZIP_NOTZIP, "npy is not zip");
    npyg_set_input_buffer(ctx, NULL, 0);
    TU_CHECK(npyg_zip_open(ctx, NULL, &z) == NPYG_EZIP_NOTZIP, "empty input");
    npyg_set_input_buffer(ctx, "x", 1);
    TU_CHECK(npyg_zip_open(ctx, NULL, NULL) == NPYG_EINVAL, "NULL out");
    npyg_set_input_fd(ctx, -1);
    TU_CHECK(npyg_zip_open(ctx, NULL, &z) == NPYG_EIO, "bad fd");
    int p[2];
    if (pipe(p) == 0) {
        npyg_set_input_fd(ctx, p[0]);
        TU_CHECK(npyg_zip_open(ctx, NULL, &z) == NPYG_ENOTREG, "pipe");
        close(p[0]);
        close(p[1]);
    }
    static const unsigned char empty[22] = {'P', 'K', 5, 6};
    npyg_set_input_buffer(ctx, empty, sizeof empty);
    TU_CHECK(npyg_zip_open(ctx, NULL, &z) == 0 && npyg_zip_count(z) == 0, "empty zip");
    TU_CHECK(npyg_zip_member(z, 0) == NULL, "member out of range");
    TU_CHECK(npyg_zip_validate_member(z, 0) == NPYG_EINVAL, "validate out of range");
    npyg_zip_close(z);
    npyg_zip_close(NULL);

    /* Members may be validated in any order, and again, with the same result. */
    size_t len;
    char path[4096];
    unsigned char *buf = tu_read_case(dir, "valid/savez-compressed-several.npz", path, &len);
    npyg_set_input_buffer(ctx, buf, len);
    if (buf && npyg_zip_open(ctx, NULL, &z) == 0) {
        uint64_t first = 0;
        for (int round = 0; round < 3; round++)
            for (size_t i = npyg_zip_count(z); i-- > 0;) {
                int rc = npyg_zip_validate_member(z, i);
                const npyg_info *in = npyg_get_info(ctx);
                TU_CHECK(rc == 0 && in, "member %zu, round %d", i, round);
                if (in && i == 0 && round == 0) first = in->payload_bytes;
                if (in && i == 0 && round > 0) TU_CHECK(in->payload_bytes == first, "same result again");
            }
        npyg_zip_close(z);
    } else {
        TU_CHECK(0, "cannot open %s", path);
    }
    free(buf);
    TU_CHECK(npyg_is_zip("PK\3\4", 4) && npyg_is_zip("PK\5\6", 4) && !npyg_is_zip("PK\1\2", 4) &&
              !npyg_is_zip("PK", 2) && !npyg_is_zip(NULL, 0),
          "npyg_is_zip");
    TU_CHECK(strcmp(npyg_error_class(NPYG_EZIP_CRC), "zip") == 0 && strcmp(npyg_error_class(NPYG_ELIMIT_RATIO), "limit") == 0,
          "error classes");
    npyg_ctx_free(ctx);
}

/* ---------------- the bomb, streamed to its end ---------------- */
static void stream_bomb(const char *dir)
{
    tu_current = "compat/bomb-deflate-4g.npz (streamed)";
    char path[4096];
    snprintf(path, sizeof path, "%s/compat/bomb-deflate-4g.npz", dir);
    npyg_limits lim;
    npyg_limits_default(&lim);
    npyg_zip_limits zl;
    npyg_zip_limits_default(&zl);
    zl.max_ratio = UINT64_MAX;
    tu_alloc cnt;
    tu_alloc_init(&cnt, npyg_zip_worst_case_alloc(&lim, &zl));
    npyg_alloc al = tu_allocator(&cnt);
    npyg_options opt = {.limits = &lim, .alloc = &al};
    npyg_ctx *ctx = npyg_ctx_new(&opt);
    int fd = open(path, O_RDONLY);
    npyg_zip *z = NULL;
    double t0 = now_s();
    npyg_set_input_fd(ctx, fd);
    int rc = npyg_zip_open(ctx, &zl, &z);
    if (!rc) rc = npyg_zip_validate_member(z, 0);
    double dt = now_s() - t0;
    TU_CHECK(rc == 0, "streamed bomb: %s (%s)", npyg_error_name(rc), npyg_last_error(ctx)->message);
    const npyg_info *in = npyg_get_info(ctx);
    TU_CHECK(in && in->payload_bytes == (UINT64_C(4) << 30), "4 GiB payload");
    npyg_zip_close(z);
    npyg_ctx_free(ctx);
    close(fd);
    TU_CHECK(cnt.refused == 0 && cnt.peak <= cnt.cap && cnt.now == 0, "bound");
    printf("bomb streamed: 4 GiB inflated and checked in %.2f s, peak allocation %llu bytes (bound %llu)\n", dt,
           (unsigned long long)cnt.peak, (unsigned long long)cnt.cap);
}

/* ---------------- crafted archives: one structure rule each ---------------- */
/* Each archive below is a small valid one (one or two stored members
   holding the .npy np.save writes for np.arange(3, dtype=np.uint8)) with
   one field changed. The verdict expected of npyguard follows APPNOTE
   6.3.x (section named in each case) and the README's error table; the
   column `zipfile` says what Python's zipfile does with the same bytes
   (ZipFile, then every member read to its end), measured with
   /usr/bin/python3 by ctest npz_structure_zipfile over the archives
   `test_npz --dump-crafted DIR` writes. */

/* np.save(f, np.arange(3, dtype=np.uint8)): 128 bytes of header, 3 of payload. */
static uint8_t small_npy[131];
static void make_small_npy(void)
{
    static const char head[] = "\x93NUMPY\x01\x00v\x00{'descr': '|u1', 'fortran_order': False, 'shape': (3,), }";
    memset(small_npy, ' ', sizeof small_npy);
    memcpy(small_npy, head, sizeof head - 1);
    small_npy[127] = '\n';
    small_npy[128] = 0;
    small_npy[129] = 1;
    small_npy[130] = 2;
}

typedef struct zmem {
    const char *name;         /* NULL: "a.npy" */
    size_t nlen;              /* 0: strlen(name) */
    uint16_t flags, method;
    const uint8_t *data;      /* bytes as stored; NULL: small_npy */
    size_t len;
    bool declared;            /* usize and crc given; else those of the stored bytes */
    uint64_t usize;
    uint32_t crc;
    const uint8_t *lx, *cx;   /* local and central extra fields */
    size_t lxl, cxl;
    const uint8_t *desc;      /* bytes after the data: a data descriptor */
    size_t descl;
    bool lzero;               /* local crc and sizes 0, as with a descriptor */
} zmem;

typedef struct zarch {
    uint8_t b[72 * 1024];
    size_t len;
    size_t loc[4], cen[4], dat[4]; /* local header, central entry, data */
    size_t cd_off, cd_size, eocd, rec64, loc64;
} zarch;

static void put(zarch *a, const void *p, size_t n)
{
    if (n == 0) return;
    if (a->len + n > sizeof a->b) { TU_CHECK(0, "crafted archive too big"); return; }
    memcpy(a->b + a->len, p, n);
    a->len += n;
}
static void put16(zarch *a, unsigned v) { uint8_t t[2] = {(uint8_t)v, (uint8_t)(v >> 8)}; put(a, t, 2); }
static void put32(zarch *a, uint32_t v) { put16(a, v & 0xFFFF); put16(a, v >> 16); }
static void put64(zarch *a, uint64_t v) { put32(a, (uint32_t)v); put32(a, (uint32_t)(v >> 32)); }
static void w16(zarch *a, size_t at, unsigned v) { a->b[at] = (uint8_t)v; a->b[at + 1] = (uint8_t)(v >> 8); }
static void w32(zarch *a, size_t at, uint32_t v) { w16(a, at, v & 0xFFFF); w16(a, at + 2, v >> 16); }
static void w64(zarch *a, size_t at, uint64_t v) { w32(a, at, (uint32_t)v); w32(a, at + 4, (uint32_t)(v >> 32)); }

static void zm_fix(const zmem *in, zmem *m)
{
    *m = *in;
    if (!m->name) m->name = "a.npy";
    if (!m->nlen) m->nlen = strlen(m->name);
    if (!m->data) { m->data = small_npy; m->len = sizeof small_npy; }
    if (!m->declared) { m->usize = m->len; m->crc = (uint32_t)crc32(0, m->data, (uInt)m->len); }
}

/* Local headers and data in order, the central directory, an optional
   zip64 end record and locator (APPNOTE 4.3.14-15), the end record. */
static void zbuild(zarch *a, const zmem *ms, size_t n, bool zip64, const char *comment)
{
    memset(a, 0, sizeof *a);
    zmem m[4];
    for (size_t i = 0; i < n; i++) {
        zm_fix(&ms[i], &m[i]);
        a->loc[i] = a->len;
        put32(a, 0x04034b50u);
        put16(a, 20);
        put16(a, m[i].flags);
        put16(a, m[i].method);
        put16(a, 0);
        put16(a, 0x21); /* 1980-01-01 */
        put32(a, m[i].lzero ? 0 : m[i].crc);
        put32(a, m[i].lzero ? 0 : (uint32_t)m[i].len);
        put32(a, m[i].lzero ? 0 : (uint32_t)m[i].usize);
        put16(a, (unsigned)m[i].nlen);
        put16(a, (unsigned)m[i].lxl);
        put(a, m[i].name, m[i].nlen);
        put(a, m[i].lx, m[i].lxl);
        a->dat[i] = a->len;
        put(a, m[i].data, m[i].len);
        put(a, m[i].desc, m[i].descl);
    }
    a->cd_off = a->len;
    for (size_t i = 0; i < n; i++) {
        a->cen[i] = a->len;
        put32(a, 0x02014b50u);
        put16(a, 20);
        put16(a, 20);
        put16(a, m[i].flags);
        put16(a, m[i].method);
        put16(a, 0);
        put16(a, 0x21);
        put32(a, m[i].crc);
        put32(a, (uint32_t)m[i].len);
        put32(a, (uint32_t)m[i].usize);
        put16(a, (unsigned)m[i].nlen);
        put16(a, (unsigned)m[i].cxl);
        put16(a, 0);
        put16(a, 0);
        put16(a, 0);
        put32(a, 0);
        put32(a, (uint32_t)a->loc[i]);
        put(a, m[i].name, m[i].nlen);
        put(a, m[i].cx, m[i].cxl);
    }
    a->cd_size = a->len - a->cd_off;
    if (zip64) {
        a->rec64 = a->len;
        put32(a, 0x06064b50u);
        put64(a, 44);
        put16(a, 45);
        put16(a, 45);
        put32(a, 0);
        put32(a, 0);
        put64(a, n);
        put64(a, n);
        put64(a, a->cd_size);
        put64(a, a->cd_off);
        a->loc64 = a->len;
        put32(a, 0x07064b50u);
        put32(a, 0);
        put64(a, a->rec64);
        put32(a, 1);
    }
    a->eocd = a->len;
    size_t cl = comment ? strlen(comment) : 0;
    put32(a, 0x06054b50u);
    put16(a, 0);
    put16(a, 0);
    put16(a, (unsigned)n);
    put16(a, (unsigned)n);
    put32(a, (uint32_t)a->cd_size);
    put32(a, (uint32_t)a->cd_off);
    put16(a, (unsigned)cl);
    put(a, comment, cl);
}

static const char *dump_dir; /* --dump-crafted DIR */
static size_t crafted_cases;
static FILE *dump_list;

/* Opens the archive from a buffer and from a file, under one profile and
   the given limits, and validates every member in turn; the first error
   must be `want`, on the member `member` (NULL: opening fails). */
static void zcase(const char *slug, const zarch *a, npyg_profile prof, const npyg_zip_limits *zl, int want,
                  const char *member, const char *zipfile)
{
    tu_current = slug;
    crafted_cases++;
    if (dump_dir) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s.npz", dump_dir, slug);
        FILE *f = fopen(path, "wb");
        if (f) { fwrite(a->b, 1, a->len, f); fclose(f); }
        TU_CHECK(f != NULL, "cannot write %s", path);
        if (dump_list && prof == NPYG_PROFILE_NUMPY && !zl) fprintf(dump_list, "%s\t%s\n", slug, zipfile);
    }
    for (int input = 0; input < 2; input++) {
        tu_alloc cnt;
        npyg_limits lim;
        npyg_limits_default(&lim);
        tu_alloc_init(&cnt, npyg_zip_worst_case_alloc(&lim, zl));
        npyg_alloc al = tu_allocator(&cnt);
        npyg_options opt = {.profile = prof, .limits = &lim, .alloc = &al};
        npyg_ctx *ctx = npyg_ctx_new(&opt);
        npyg_zip *z = NULL;
        int rc, fd = -1;
        if (input == 0) {
            npyg_set_input_buffer(ctx, a->b, a->len);
            rc = npyg_zip_open(ctx, zl, &z);
        } else {
            /* the archive after 7 bytes of something else, read from there */
            FILE *f = tmpfile();
            fd = f ? dup(fileno(f)) : -1;
            if (f) fclose(f);
            if (fd < 0 || write(fd, "garbage", 7) != 7 || write(fd, a->b, a->len) != (ssize_t)a->len ||
                lseek(fd, 7, SEEK_SET) != 7) {
                TU_CHECK(0, "temporary file");
                npyg_ctx_free(ctx);
                if (fd >= 0) close(fd);
                return;
            }
            npyg_set_input_fd(ctx, fd);
            rc = npyg_zip_open(ctx, zl, &z);
        }
        const char *failed = NULL;
        for (size_t i = 0; !rc && i < npyg_zip_count(z); i++) {
            rc = npyg_zip_validate_member(z, i);
            if (rc) failed = npyg_zip_member(z, i)->name;
        }
        const char *how = input ? "fd" : "buffer";
        TU_CHECK(rc == want, "%s: %s (%s), want %s", how, npyg_error_name(rc), rc ? npyg_last_error(ctx)->message : "",
                 npyg_error_name(want));
        if (rc) TU_CHECK(npyg_last_error(ctx)->code == rc, "%s: last error differs", how);
        if (want && rc == want)
            TU_CHECK(member ? failed && !strcmp(failed, member) : failed == NULL, "%s: failed on member '%s', want '%s'",
                     how, failed ? failed : "(open)", member ? member : "(open)");
        npyg_zip_close(z);
        npyg_ctx_free(ctx);
        if (fd >= 0) close(fd);
        TU_CHECK(cnt.now == 0 && cnt.refused == 0, "%s: leak %llu or refused %u", how, (unsigned long long)cnt.now,
                 cnt.refused);
    }
}

#define NUMPY NPYG_PROFILE_NUMPY
#define STRICT NPYG_PROFILE_STRICT

/* Raw deflate of src (zipfile's method 8 stream). */
static size_t deflate_raw(const uint8_t *src, size_t n, uint8_t *out, size_t cap)
{
    z_stream s;
    memset(&s, 0, sizeof s);
    if (deflateInit2(&s, 9, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK) return 0;
    s.next_in = (Bytef *)src;
    s.avail_in = (uInt)n;
    s.next_out = out;
    s.avail_out = (uInt)cap;
    int r = deflate(&s, Z_FINISH);
    size_t got = cap - s.avail_out;
    deflateEnd(&s);
    return r == Z_STREAM_END ? got : 0;
}

/* An extra record: id, then len bytes from data (NULL: zeros). */
static size_t xrec(uint8_t *out, unsigned id, size_t len, const uint8_t *data)
{
    out[0] = (uint8_t)id;
    out[1] = (uint8_t)(id >> 8);
    out[2] = (uint8_t)len;
    out[3] = (uint8_t)(len >> 8);
    if (data) memcpy(out + 4, data, len);
    else memset(out + 4, 0, len);
    return 4 + len;
}
static void le64_to(uint8_t *p, uint64_t v)
{
    for (int k = 0; k < 8; k++) p[k] = (uint8_t)(v >> (8 * k));
}

static void crafted(void)
{
    make_small_npy();
    zarch a;
    zmem one = {0};
    zmem two[2] = {{.name = "a.npy"}, {.name = "b.npy"}};
    const int OK = 0;

    /* Well-formed, as zipfile writes them. */
    zbuild(&a, &one, 1, false, NULL);
    zcase("baseline", &a, STRICT, NULL, OK, NULL, "accept");
    zcase("baseline", &a, NUMPY, NULL, OK, NULL, "accept");
    zbuild(&a, two, 2, false, NULL);
    zcase("two-members", &a, STRICT, NULL, OK, NULL, "accept");
    zbuild(&a, &one, 1, true, NULL);
    zcase("zip64-end-record", &a, STRICT, NULL, OK, NULL, "accept");
    /* 4.4.1.4: every end-record field may defer to the zip64 record */
    w16(&a, a.eocd + 8, 0xFFFF);
    w16(&a, a.eocd + 10, 0xFFFF);
    w32(&a, a.eocd + 12, 0xFFFFFFFFu);
    w32(&a, a.eocd + 16, 0xFFFFFFFFu);
    zcase("zip64-end-record-markers", &a, STRICT, NULL, OK, NULL, "accept");

    /* ---- the end record (4.3.16) ---- */
    zbuild(&a, &one, 1, false, NULL);
    zarch s = a;
    s.len = 14; /* a local header's first bytes: too short for any end record */
    zcase("short-no-end-record", &s, NUMPY, NULL, NPYG_EZIP_EOCD, NULL, "reject");
    s = a;
    s.b[s.eocd + 3] = 7;
    zcase("end-record-signature-broken", &s, NUMPY, NULL, NPYG_EZIP_EOCD, NULL, "reject");
    /* the comment is the last field: its length must reach the end */
    zbuild(&a, &one, 1, false, "abcd");
    zcase("comment", &a, NUMPY, NULL, OK, NULL, "accept");
    zcase("comment", &a, STRICT, NULL, NPYG_EZIP_COMMENT, NULL, "accept");
    s = a;
    w16(&s, s.eocd + 20, 10);
    zcase("comment-length-past-end", &s, NUMPY, NULL, NPYG_EZIP_EOCD, NULL, "accept");
    s = a;
    w16(&s, s.eocd + 20, 2);
    zcase("comment-length-short-of-end", &s, NUMPY, NULL, NPYG_EZIP_EOCD, NULL, "accept");
    zbuild(&a, &one, 1, false, NULL);
    s = a;
    w16(&s, s.eocd + 6, 1);
    zcase("end-record-directory-on-disk-1", &s, NUMPY, NULL, NPYG_EZIP_MULTIDISK, NULL, "accept");
    s = a;
    w16(&s, s.eocd + 8, 0);
    zcase("end-record-entries-on-disk-differ", &s, NUMPY, NULL, NPYG_EZIP_MULTIDISK, NULL, "accept");

    /* ---- zip64 locator and end record (4.3.14, 4.3.15) ---- */
    zbuild(&a, &one, 1, true, NULL);
    s = a;
    w32(&s, s.loc64 + 4, 1);
    zcase("zip64-locator-disk-1", &s, NUMPY, NULL, NPYG_EZIP_MULTIDISK, NULL, "reject");
    s = a;
    w32(&s, s.loc64 + 16, 2);
    zcase("zip64-locator-two-disks", &s, NUMPY, NULL, NPYG_EZIP_MULTIDISK, NULL, "reject");
    s = a;
    w64(&s, s.loc64 + 8, s.rec64 - 1);
    zcase("zip64-locator-offset-wrong", &s, NUMPY, NULL, NPYG_EZIP_ZIP64, NULL, "accept");
    s = a;
    s.b[s.rec64 + 3] = 9;
    zcase("zip64-record-signature-broken", &s, NUMPY, NULL, NPYG_EZIP_ZIP64, NULL, "reject");
    s = a;
    w64(&s, s.rec64 + 4, 45);
    zcase("zip64-record-size-field", &s, NUMPY, NULL, NPYG_EZIP_ZIP64, NULL, "accept");
    s = a;
    w32(&s, s.rec64 + 16, 1);
    zcase("zip64-record-disk-1", &s, NUMPY, NULL, NPYG_EZIP_MULTIDISK, NULL, "accept");
    s = a;
    w32(&s, s.rec64 + 20, 1);
    zcase("zip64-record-directory-on-disk-1", &s, NUMPY, NULL, NPYG_EZIP_MULTIDISK, NULL, "accept");
    s = a;
    w64(&s, s.rec64 + 24, 2);
    zcase("zip64-record-entries-on-disk-differ", &s, NUMPY, NULL, NPYG_EZIP_MULTIDISK, NULL, "accept");
    s = a;
    w64(&s, s.rec64 + 24, 2);
    w64(&s, s.rec64 + 32, 2);
    zcase("zip64-record-count-disagrees", &s, NUMPY, NULL, NPYG_EZIP_ZIP64, NULL, "accept");
    s = a;
    w64(&s, s.rec64 + 40, s.cd_size + 1);
    zcase("zip64-record-size-disagrees", &s, NUMPY, NULL, NPYG_EZIP_ZIP64, NULL, "reject");
    s = a;
    w64(&s, s.rec64 + 48, s.cd_off + 1);
    zcase("zip64-record-offset-disagrees", &s, NUMPY, NULL, NPYG_EZIP_ZIP64, NULL, "reject");
    /* a locator with no room for a zip64 record before it: an empty
       archive whose first 22 bytes are filler after PK\5\6 */
    memset(&s, 0, sizeof s);
    put32(&s, 0x06054b50u);
    for (int k = 0; k < 18; k++) put(&s, "", 1);
    put32(&s, 0x07064b50u);
    put32(&s, 0);
    put64(&s, 0);
    put32(&s, 1);
    put32(&s, 0x06054b50u);
    for (int k = 0; k < 18; k++) put(&s, "", 1);
    zcase("zip64-locator-without-room", &s, NUMPY, NULL, NPYG_EZIP_ZIP64, NULL, "reject");
}

static void crafted_entries(void)
{
    zarch a, s;
    const int OK = 0;
    uint8_t x[128], v[64];
    size_t n;

    /* ---- extra fields (4.5.1): records that fill the field exactly ---- */
    n = xrec(x, 0x5455, 5, NULL); /* extended timestamp */
    zmem ut = {.lx = x, .lxl = n, .cx = x, .cxl = n};
    zbuild(&a, &ut, 1, false, NULL);
    zcase("extra-timestamp-record", &a, STRICT, NULL, OK, NULL, "accept");
    zmem bad = {.cx = (const uint8_t *)"\x55\x54\x01", .cxl = 3};
    zbuild(&a, &bad, 1, false, NULL);
    zcase("central-extra-stray-bytes", &a, NUMPY, NULL, NPYG_EZIP_CDIR, NULL, "accept");
    n = xrec(x, 0x5455, 5, NULL);
    x[2] = 9; /* claims 9 bytes, holds 5 */
    bad = (zmem){.cx = x, .cxl = n};
    zbuild(&a, &bad, 1, false, NULL);
    zcase("central-extra-record-runs-past", &a, NUMPY, NULL, NPYG_EZIP_CDIR, NULL, "reject");
    bad = (zmem){.lx = (const uint8_t *)"\x55\x54", .lxl = 2};
    zbuild(&a, &bad, 1, false, NULL);
    zcase("local-extra-stray-bytes", &a, NUMPY, NULL, NPYG_EZIP_LOCAL, NULL, "accept");
    bad = (zmem){.lx = x, .lxl = n};
    zbuild(&a, &bad, 1, false, NULL);
    zcase("local-extra-record-runs-past", &a, NUMPY, NULL, NPYG_EZIP_LOCAL, NULL, "accept");
    n = xrec(x, 0x0001, 0, NULL);
    n += xrec(x + n, 0x0001, 0, NULL);
    bad = (zmem){.cx = x, .cxl = n};
    zbuild(&a, &bad, 1, false, NULL);
    zcase("central-two-zip64-records", &a, NUMPY, NULL, NPYG_EZIP_ZIP64, NULL, "accept");
    n = xrec(x, 0x0001, 0, NULL);
    bad = (zmem){.cx = x, .cxl = n};
    zbuild(&a, &bad, 1, false, NULL);
    zcase("central-zip64-record-empty", &a, STRICT, NULL, OK, NULL, "accept");
    n = xrec(x, 0x0001, 8, NULL);
    bad = (zmem){.cx = x, .cxl = n};
    zbuild(&a, &bad, 1, false, NULL);
    zcase("central-zip64-record-unneeded", &a, NUMPY, NULL, NPYG_EZIP_ZIP64, NULL, "accept");

    /* 4.5.3: the central zip64 record holds, in order, the fields whose
       32-bit slot is the marker: sizes, offset, disk */
    le64_to(v, sizeof small_npy);
    le64_to(v + 8, sizeof small_npy);
    le64_to(v + 16, 0);
    memset(v + 24, 0, 4);
    n = xrec(x, 0x0001, 28, v);
    zmem z64 = {.cx = x, .cxl = n};
    zbuild(&a, &z64, 1, false, NULL);
    w32(&a, a.cen[0] + 20, 0xFFFFFFFFu);
    w32(&a, a.cen[0] + 24, 0xFFFFFFFFu);
    w32(&a, a.cen[0] + 42, 0xFFFFFFFFu);
    w16(&a, a.cen[0] + 34, 0xFFFF);
    zcase("central-zip64-all-markers", &a, STRICT, NULL, OK, NULL, "accept");
    s = a;
    s.b[a.cen[0] + 46 + 5 + 4 + 24] = 1; /* the zip64 disk number */
    zcase("central-zip64-disk-1", &s, NUMPY, NULL, NPYG_EZIP_MULTIDISK, NULL, "accept");
    zbuild(&a, &(zmem){0}, 1, false, NULL);
    s = a;
    w16(&s, s.cen[0] + 34, 1);
    zcase("central-disk-1", &s, NUMPY, NULL, NPYG_EZIP_MULTIDISK, NULL, "accept");

    /* ---- the central directory (4.3.12) ---- */
    s = a;
    s.b[s.cen[0] + 2] = 9;
    zcase("central-signature-broken", &s, NUMPY, NULL, NPYG_EZIP_CDIR, NULL, "reject");
    s = a;
    w16(&s, s.cen[0] + 28, 200);
    zcase("central-name-runs-past-directory", &s, NUMPY, NULL, NPYG_EZIP_CDIR, NULL, "accept");
    /* the end record counts two entries; the directory holds one */
    n = xrec(x, 0x5455, 42, NULL);
    zmem big = {.cx = x, .cxl = n};
    zbuild(&a, &big, 1, false, NULL);
    w16(&a, a.eocd + 8, 2);
    w16(&a, a.eocd + 10, 2);
    zcase("end-record-counts-one-entry-too-many", &a, NUMPY, NULL, NPYG_EZIP_CDIR, NULL, "accept");
    /* two entries counted; the first one's name fills the whole directory */
    zmem longname = {.name = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.npy"};
    zbuild(&a, &longname, 1, false, NULL);
    w16(&a, a.eocd + 8, 2);
    w16(&a, a.eocd + 10, 2);
    zcase("first-entry-fills-directory-of-two", &a, NUMPY, NULL, NPYG_EZIP_CDIR, NULL, "accept");
    zbuild(&a, &(zmem){0}, 1, false, NULL);
    s = a;
    w16(&s, s.eocd + 8, 3);
    w16(&s, s.eocd + 10, 3);
    zcase("directory-too-small-for-count", &s, NUMPY, NULL, NPYG_EZIP_CDIR, NULL, "accept");
    s = a;
    w16(&s, s.eocd + 8, 0);
    w16(&s, s.eocd + 10, 0);
    zcase("no-entries-with-a-directory", &s, NUMPY, NULL, NPYG_EZIP_CDIR, NULL, "accept");
    memset(&s, 0, sizeof s);
    put(&s, "PK\3\4 not a member", 18);
    size_t at = s.len;
    put32(&s, 0x06054b50u);
    put16(&s, 0); put16(&s, 0); put16(&s, 0); put16(&s, 0);
    put32(&s, 0);
    put32(&s, (uint32_t)at);
    put16(&s, 0);
    zcase("no-entries-after-stray-bytes", &s, NUMPY, NULL, NPYG_EZIP_GAP, NULL, "accept");

    /* stored: compressed and uncompressed sizes are one size (4.4.5) */
    zmem shrt = {.declared = true, .usize = 130, .crc = (uint32_t)crc32(0, small_npy, 131)};
    zbuild(&a, &shrt, 1, false, NULL);
    zcase("stored-sizes-differ", &a, NUMPY, NULL, NPYG_EZIP_SIZE, NULL, "reject");

    /* ---- flags (4.4.4) and methods (4.4.5) ---- */
    static const struct { const char *slug; unsigned flags, method; int want; const char *zf; } fl[] = {
        {"flag-bit-4-enhanced-deflate", 0x0010, 0, NPYG_EZIP_FLAGS, "accept"},
        {"flag-bit-6-strong-encryption", 0x0040, 0, NPYG_EZIP_ENCRYPTED, "reject"},
        {"flag-bit-13-directory-encrypted", 0x2000, 0, NPYG_EZIP_ENCRYPTED, "accept"},
        {"method-9-deflate64", 0, 9, NPYG_EZIP_METHOD, "reject"},
    };
    for (size_t k = 0; k < sizeof fl / sizeof fl[0]; k++) {
        zmem m = {.flags = (uint16_t)fl[k].flags, .method = (uint16_t)fl[k].method};
        zbuild(&a, &m, 1, false, NULL);
        zcase(fl[k].slug, &a, NUMPY, NULL, fl[k].want, NULL, fl[k].zf);
    }

    /* ---- names: what a path must not be ---- */
    static const struct { const char *slug, *name; size_t nlen; unsigned flags; int want, strict_want; const char *zf; } nm[] = {
        {"name-empty", "", 0, 0, NPYG_EZIP_NAME, NPYG_EZIP_NAME, "accept"},
        {"name-delete-character", "a\x7f.npy", 0, 0, NPYG_EZIP_NAME, NPYG_EZIP_NAME, "accept"},
        {"name-drive-letter", "C:a.npy", 0, 0, NPYG_EZIP_NAME, NPYG_EZIP_NAME, "accept"},
        {"name-empty-component", "d//a.npy", 0, 0, NPYG_EZIP_NAME, NPYG_EZIP_NAME, "accept"},
        {"name-dot-component", "d/./a.npy", 0, 0, NPYG_EZIP_NAME, NPYG_EZIP_NAME, "accept"},
        {"name-utf8-flag-invalid", "\xff.npy", 0, 0x0800, NPYG_EZIP_NAME, NPYG_EZIP_NAME, "reject"},
        {"name-in-a-directory", "d/a.npy", 0, 0, OK, OK, "accept"},
        {"name-utf8-flag-valid", "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80.npy", 0, 0x0800, OK, OK, "accept"},
        {"name-cp437", "\x82\xe4.npy", 0, 0, OK, NPYG_EZIP_NAME, "accept"},
    };
    for (size_t k = 0; k < sizeof nm / sizeof nm[0]; k++) {
        zmem m = {.name = nm[k].name, .nlen = nm[k].nlen, .flags = (uint16_t)nm[k].flags};
        zbuild(&a, &m, 1, false, NULL);
        zcase(nm[k].slug, &a, NUMPY, NULL, nm[k].want, NULL, nm[k].zf);
        zcase(nm[k].slug, &a, STRICT, NULL, nm[k].strict_want, NULL, nm[k].zf);
    }
}

static void crafted_locals(void)
{
    zarch a, s;
    const int OK = 0;
    uint8_t x[64], v[32], d[32];
    size_t n;

    /* ---- local headers (4.3.7): where the directory says, agreeing ---- */
    zbuild(&a, &(zmem){0}, 1, false, NULL);
    s = a;
    w32(&s, s.cen[0] + 42, (uint32_t)s.cd_off);
    zcase("local-offset-at-directory", &s, NUMPY, NULL, NPYG_EZIP_BOUNDS, NULL, "reject");
    s = a;
    w32(&s, s.cen[0] + 42, (uint32_t)s.cd_off + 100);
    zcase("local-offset-past-directory", &s, NUMPY, NULL, NPYG_EZIP_BOUNDS, NULL, "reject");
    s = a;
    s.b[1] = 'X';
    zcase("local-signature-broken", &s, NUMPY, NULL, NPYG_EZIP_NOTZIP, NULL, "reject");
    zmem two[2] = {{.name = "a.npy"}, {.name = "b.npy"}};
    zbuild(&a, two, 2, false, NULL);
    s = a;
    s.b[s.loc[1] + 2] = 9;
    zcase("second-local-signature-broken", &s, NUMPY, NULL, NPYG_EZIP_LOCAL, NULL, "reject");
    zbuild(&a, &(zmem){0}, 1, false, NULL);
    s = a;
    w16(&s, 26, 1000);
    zcase("local-name-runs-past", &s, NUMPY, NULL, NPYG_EZIP_BOUNDS, NULL, "reject");
    s = a;
    w16(&s, 26, 4);
    zcase("local-name-length-differs", &s, NUMPY, NULL, NPYG_EZIP_LOCAL, NULL, "reject");
    s = a;
    w32(&s, 18, (uint32_t)sizeof small_npy - 1);
    zcase("local-compressed-size-differs", &s, NUMPY, NULL, NPYG_EZIP_LOCAL, NULL, "accept");
    s = a;
    w32(&s, 22, 0xFFFFFFFFu);
    zcase("local-size-marker-without-zip64", &s, NUMPY, NULL, NPYG_EZIP_ZIP64, NULL, "accept");
    /* stored and uncompressed sizes past the data: the member area ends first */
    s = a;
    w32(&s, 18, 200);
    w32(&s, 22, 200);
    w32(&s, s.cen[0] + 20, 200);
    w32(&s, s.cen[0] + 24, 200);
    zcase("data-runs-past-member-area", &s, NUMPY, NULL, NPYG_EZIP_BOUNDS, NULL, "reject");

    /* a local zip64 record as np.savez writes it (force_zip64): both sizes */
    le64_to(v, sizeof small_npy);
    le64_to(v + 8, sizeof small_npy);
    n = xrec(x, 0x0001, 16, v);
    zbuild(&a, &(zmem){.lx = x, .lxl = n}, 1, false, NULL);
    zcase("local-zip64-record", &a, STRICT, NULL, OK, NULL, "accept");
    s = a;
    w32(&s, 18, 0xFFFFFFFFu);
    w32(&s, 22, 0xFFFFFFFFu);
    zcase("local-zip64-record-markers", &s, STRICT, NULL, OK, NULL, "accept");
    s = a;
    w64(&s, 30 + 5 + 4, sizeof small_npy + 1);
    zcase("local-zip64-uncompressed-disagrees", &s, NUMPY, NULL, NPYG_EZIP_LOCAL, NULL, "accept");
    s = a;
    w64(&s, 30 + 5 + 4 + 8, sizeof small_npy + 1);
    zcase("local-zip64-compressed-disagrees", &s, NUMPY, NULL, NPYG_EZIP_LOCAL, NULL, "accept");
    n = xrec(x, 0x0001, 8, v);
    zbuild(&a, &(zmem){.lx = x, .lxl = n}, 1, false, NULL);
    zcase("local-zip64-record-8-bytes", &a, NUMPY, NULL, NPYG_EZIP_ZIP64, NULL, "accept");

    /* ---- data descriptors (4.3.9) ---- */
    uint32_t crc = (uint32_t)crc32(0, small_npy, sizeof small_npy);
    size_t dl = 0;
    memcpy(d, "PK\7\10", 4);
    le64_to(d + 4, crc);
    le64_to(d + 8, sizeof small_npy);
    le64_to(d + 12, sizeof small_npy);
    dl = 16;
    zmem desc = {.flags = 0x0008, .lzero = true, .desc = d, .descl = dl};
    zbuild(&a, &desc, 1, false, NULL);
    zcase("descriptor", &a, STRICT, NULL, OK, NULL, "accept");
    desc.lzero = false; /* bit 3 with the real values in the local header too */
    zbuild(&a, &desc, 1, false, NULL);
    zcase("descriptor-and-local-values", &a, STRICT, NULL, OK, NULL, "accept");
    desc.lzero = true;
    le64_to(d + 8, sizeof small_npy + 1);
    zbuild(&a, &desc, 1, false, NULL);
    zcase("descriptor-compressed-size-wrong", &a, NUMPY, NULL, NPYG_EZIP_DESCRIPTOR, NULL, "accept");
    le64_to(d + 8, sizeof small_npy);
    le64_to(d + 12, sizeof small_npy + 1);
    zbuild(&a, &desc, 1, false, NULL);
    zcase("descriptor-uncompressed-size-wrong", &a, NUMPY, NULL, NPYG_EZIP_DESCRIPTOR, NULL, "accept");
    desc.descl = 8; /* cut short by the directory */
    zbuild(&a, &desc, 1, false, NULL);
    zcase("descriptor-cut-short", &a, NUMPY, NULL, NPYG_EZIP_DESCRIPTOR, NULL, "accept");
    /* with a local zip64 record the sizes are 8 bytes each (4.3.9.2) */
    memcpy(d, "PK\7\10", 4);
    le64_to(d + 4, crc);
    le64_to(d + 8, sizeof small_npy);
    le64_to(d + 16, sizeof small_npy);
    memset(v, 0, 16);
    n = xrec(x, 0x0001, 16, v);
    desc = (zmem){.flags = 0x0008, .lzero = true, .desc = d, .descl = 24, .lx = x, .lxl = n};
    zbuild(&a, &desc, 1, false, NULL);
    zcase("descriptor-zip64", &a, STRICT, NULL, OK, NULL, "accept");
    desc.descl = 16; /* 4-byte sizes where 8-byte ones are due */
    memcpy(d, "PK\7\10", 4);
    le64_to(d + 4, crc);
    le64_to(d + 8, sizeof small_npy);
    le64_to(d + 12, sizeof small_npy);
    zbuild(&a, &desc, 1, false, NULL);
    zcase("descriptor-zip64-narrow", &a, NUMPY, NULL, NPYG_EZIP_DESCRIPTOR, NULL, "accept");

    /* ---- layout: members tile the archive up to the directory ---- */
    zbuild(&a, &(zmem){.desc = (const uint8_t *)"12345", .descl = 5}, 1, false, NULL);
    zcase("bytes-before-directory", &a, NUMPY, NULL, NPYG_EZIP_GAP, NULL, "accept");
}

/* Members that are not what they say, inflated; and the archive-wide limits. */
static void crafted_streams(void)
{
    zarch a;
    const int OK = 0;
    uint8_t def[512], raw[4096];
    size_t dn = deflate_raw(small_npy, sizeof small_npy, def, sizeof def);
    TU_CHECK(dn > 0, "deflate");
    uint32_t crc = (uint32_t)crc32(0, small_npy, sizeof small_npy);

    zmem m = {.method = 8, .data = def, .len = dn, .declared = true, .usize = sizeof small_npy, .crc = crc};
    zbuild(&a, &m, 1, false, NULL);
    zcase("deflated", &a, STRICT, NULL, OK, NULL, "accept");
    /* the stream ends before the declared size (4.4.9) */
    m.usize = 200;
    zbuild(&a, &m, 1, false, NULL);
    zcase("deflated-short-of-declared-size", &a, NUMPY, NULL, NPYG_EZIP_SIZE, "a.npy", "accept");

    /* numpy hands back members that are not .npy as bytes: short, empty */
    zmem tiny[2] = {{.name = "t.npy", .data = (const uint8_t *)"abc", .len = 3},
                    {.name = "e.npy", .data = (const uint8_t *)"", .len = 0}};
    zbuild(&a, tiny, 2, false, NULL);
    zcase("members-shorter-than-magic", &a, NUMPY, NULL, OK, NULL, "accept");
    zcase("members-shorter-than-magic", &a, STRICT, NULL, NPYG_EZIP_NOTNPY, "t.npy", "accept");

    /* Sizes past 2^63 in zip64 records: sums saturate, never wrap. */
    memset(raw, 0, sizeof raw);
    dn = deflate_raw(raw, sizeof raw, def, sizeof def);
    uint64_t huge = (UINT64_C(1) << 63) + 1;
    uint8_t cx[2][32], lx[2][32], v[16];
    zmem hm[2];
    for (int k = 0; k < 2; k++) {
        le64_to(v, huge);
        xrec(cx[k], 0x0001, 8, v);
        le64_to(v + 8, dn);
        xrec(lx[k], 0x0001, 16, v);
        hm[k] = (zmem){.name = k ? "b.npy" : "a.npy", .method = 8, .data = def, .len = dn, .declared = true,
                       .usize = 0xFFFFFFFFu, .crc = 0, .cx = cx[k], .cxl = 12, .lx = lx[k], .lxl = 20};
    }
    zbuild(&a, hm, 2, false, NULL);
    zcase("zip64-sizes-past-2-63", &a, NUMPY, NULL, NPYG_ELIMIT_UNCOMPRESSED, NULL, "reject");
    npyg_zip_limits zl;
    npyg_zip_limits_default(&zl);
    zl.max_total_uncompressed = UINT64_MAX;
    zcase("zip64-sizes-past-2-63", &a, NUMPY, &zl, NPYG_ELIMIT_UNCOMPRESSED, NULL, "reject");
    /* no limit at all: the declared size is refused when the stream ends */
    zl.max_total_uncompressed = UINT64_MAX;
    zl.max_ratio = UINT64_MAX;
    zl.inflate_budget_bytes = UINT64_MAX;
    zbuild(&a, hm, 1, false, NULL);
    zcase("zip64-size-past-2-63-unlimited", &a, NUMPY, &zl, NPYG_EZIP_SIZE, "a.npy", "reject");

    /* the archive's inflation budget: inflate_budget_bytes + max_ratio x size */
    zmem zeros = {.name = "z.npy", .method = 8, .data = def, .len = dn, .declared = true, .usize = sizeof raw,
                  .crc = (uint32_t)crc32(0, raw, sizeof raw)};
    zbuild(&a, &zeros, 1, false, NULL);
    zcase("deflated-zeros", &a, NUMPY, NULL, OK, NULL, "accept");
    npyg_zip_limits_default(&zl);
    zl.inflate_budget_bytes = 0;
    zl.max_ratio = 2; /* 4096 bytes from an archive of about 150 */
    zcase("deflated-zeros", &a, NUMPY, &zl, NPYG_ELIMIT_INFLATE, "z.npy", "accept");
}


/* Rules the cases above leave out: name edges, records inside a comment,
   marker combinations, directory arithmetic, streams that end early or at
   a chunk boundary, the limits' own validity and the API's arguments. */
static void crafted_more(void)
{
    static zarch a, s; /* big: a member of more than one 64 KiB read */
    const int OK = 0;
    uint8_t x[64], v[32];

    /* names that only look like the refused ones */
    static const char *const fine[] = {"1:a.npy", "~:a.npy", ".a/x.npy"};
    static const char *const fine_slug[] = {"name-digit-colon", "name-tilde-colon", "name-dot-prefixed-component"};
    for (size_t k = 0; k < 3; k++) {
        zbuild(&a, &(zmem){.name = fine[k]}, 1, false, NULL);
        zcase(fine_slug[k], &a, STRICT, NULL, OK, NULL, "accept");
    }
    /* a key that runs longer than another member's whole name */
    zmem ab[2] = {{.name = "a"}, {.name = "ab.npy"}};
    zbuild(&a, ab, 2, false, NULL);
    zcase("key-longer-than-a-name", &a, NUMPY, NULL, OK, NULL, "accept");

    /* 'éééé.npy' in cp437 and 'éééé' flagged UTF-8, both 8 bytes: one key
       to numpy, which finds the second by its whole name first and never
       reads the first (as key-is-other-name.npz in the corpus) */
    zmem same_key[2] = {{.name = "\x82\x82\x82\x82.npy"}, {.name = "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9", .flags = 0x0800}};
    zbuild(&a, same_key, 2, false, NULL);
    zcase("duplicate-key-cp437-npy-and-utf8-bare", &a, NUMPY, NULL, NPYG_EZIP_DUPNAME, NULL, "accept");

    /* a 22-byte comment that is itself an end record with a comment: the
       last signature is the comment's, whose comment runs past the end */
    char fake[23] = "PK\5\6";
    memset(fake + 4, 'x', 18);
    fake[22] = 0;
    zbuild(&a, &(zmem){0}, 1, false, fake);
    zcase("comment-holds-end-record", &a, NUMPY, NULL, NPYG_EZIP_EOCD, NULL, "reject");

    zbuild(&a, &(zmem){0}, 1, false, NULL);
    s = a;
    w32(&s, 18, 0xFFFFFFFFu);
    zcase("local-compressed-marker-without-zip64", &s, NUMPY, NULL, NPYG_EZIP_ZIP64, NULL, "accept");
    s = a;
    w32(&s, 22, sizeof small_npy + 1);
    zcase("local-uncompressed-size-differs", &s, NUMPY, NULL, NPYG_EZIP_LOCAL, NULL, "accept");

    /* zip64 sums: a directory offset plus size past 2^64 */
    zbuild(&a, &(zmem){0}, 1, true, NULL);
    s = a;
    w64(&s, s.rec64 + 48, UINT64_MAX);
    w32(&s, s.eocd + 16, 0xFFFFFFFFu);
    zcase("zip64-directory-offset-past-2-64", &s, NUMPY, NULL, NPYG_EZIP_CDIR, NULL, "reject");

    /* a deflated member declared 2^32 bytes by the directory's zip64
       record only: the local header has zeros and a descriptor follows,
       whose sizes must then be 8 bytes wide (4.3.9.2) */
    uint8_t def[512], zero[4096] = {0};
    size_t dn = deflate_raw(zero, sizeof zero, def, sizeof def);
    uint64_t big = UINT64_C(1) << 32;
    le64_to(v, big);
    size_t xn = xrec(x, 0x0001, 8, v);
    uint8_t d[24];
    uint32_t zcrc = 0x12345678u;
    memcpy(d, "PK\7\10", 4);
    le64_to(d + 4, zcrc);
    le64_to(d + 8, dn);
    le64_to(d + 16, big);
    zmem wide = {.name = "w.npy", .flags = 0x0008, .method = 8, .data = def, .len = dn, .declared = true,
                 .usize = 0xFFFFFFFFu, .crc = zcrc, .cx = x, .cxl = xn, .lzero = true, .desc = d, .descl = 24};
    zbuild(&a, &wide, 1, false, NULL);
    /* opens; the member then declares 4 GiB from about 30 bytes */
    zcase("descriptor-wide-for-directory-zip64-size", &a, NUMPY, NULL, NPYG_ELIMIT_RATIO, "w.npy", "reject");
    /* bit 3, but the local header keeps its uncompressed size where all
       three fields should be zero (4.4.4): the local values must then
       agree with the directory, and the CRC does not */
    zmem partial = {.flags = 0x0008, .lzero = true};
    zbuild(&s, &partial, 1, false, NULL);
    w32(&s, 22, sizeof small_npy);
    zcase("descriptor-local-uncompressed-size-kept", &s, NUMPY, NULL, NPYG_EZIP_LOCAL, NULL, "accept");

    /* the local uncompressed size is the marker and the directory's zip64
       record says 0xFFFFFFFF: the same value, so the header agrees; the
       member then declares 4 GiB from about 30 bytes */
    le64_to(v, 0xFFFFFFFFu);
    xrec(x, 0x0001, 8, v);
    wide.flags = 0;
    wide.lzero = false;
    wide.descl = 0;
    zbuild(&a, &wide, 1, false, NULL);
    w32(&a, 22, 0xFFFFFFFFu);
    zcase("local-uncompressed-marker-same-as-zip64", &a, NUMPY, NULL, NPYG_ELIMIT_RATIO, "w.npy", "reject");

    /* local markers with the zip64 record only in the directory: the
       uncompressed size is 0xFFFFFFFF itself, the compressed one is not */
    le64_to(v, 0xFFFFFFFFu);
    xrec(x, 0x0001, 8, v);
    wide.flags = 0;
    wide.lzero = false;
    wide.descl = 0;
    zbuild(&a, &wide, 1, false, NULL);
    w32(&a, 18, 0xFFFFFFFFu);
    w32(&a, 22, 0xFFFFFFFFu);
    zcase("local-markers-zip64-only-in-directory", &a, NUMPY, NULL, NPYG_EZIP_ZIP64, NULL, "reject");

    /* a deflate stream flushed but never finished: its data is all there,
       the final block never comes (3.2.3 of RFC 1951) */
    z_stream zs;
    memset(&zs, 0, sizeof zs);
    uint8_t fl[512];
    size_t fn = 0;
    if (deflateInit2(&zs, 6, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY) == Z_OK) {
        zs.next_in = small_npy;
        zs.avail_in = sizeof small_npy;
        zs.next_out = fl;
        zs.avail_out = sizeof fl;
        if (deflate(&zs, Z_SYNC_FLUSH) == Z_OK) fn = sizeof fl - zs.avail_out;
        deflateEnd(&zs);
    }
    TU_CHECK(fn > 0, "sync-flushed deflate");
    zbuild(&a, &(zmem){.method = 8, .data = fl, .len = fn, .declared = true, .usize = sizeof small_npy,
                       .crc = (uint32_t)crc32(0, small_npy, sizeof small_npy)}, 1, false, NULL);
    /* zipfile stops at the compressed size and never asks for the end */
    zcase("deflate-no-final-block", &a, NUMPY, NULL, NPYG_EZIP_INFLATE, "a.npy", "accept");

    /* one final stored block of 65531 bytes: the stream is 65536 bytes,
       exactly one read of the library's 64 KiB input chunk, and ends
       there; four bytes of the declared compressed size are left over */
    static uint8_t blk[65536 + 4];
    size_t dlen = 65531;
    blk[0] = 1; /* BFINAL, stored */
    blk[1] = (uint8_t)dlen;
    blk[2] = (uint8_t)(dlen >> 8);
    blk[3] = (uint8_t)~dlen;
    blk[4] = (uint8_t)(~dlen >> 8);
    for (size_t i = 0; i < dlen; i++) blk[5 + i] = (uint8_t)(i * 7);
    memcpy(blk + 65536, "junk", 4);
    zmem chunk = {.name = "c.bin", .method = 8, .data = blk, .len = sizeof blk, .declared = true, .usize = dlen,
                  .crc = (uint32_t)crc32(0, blk + 5, (uInt)dlen)};
    zbuild(&a, &chunk, 1, false, NULL);
    zcase("deflate-ends-at-chunk-end-then-junk", &a, NUMPY, NULL, NPYG_EZIP_SIZE, "c.bin", "accept");
    chunk.len = 65536;
    zbuild(&a, &chunk, 1, false, NULL);
    zcase("deflate-ends-at-chunk-end", &a, NUMPY, NULL, OK, NULL, "accept");

    /* limits: an inflation budget past 2^64 saturates */
    npyg_zip_limits zl;
    npyg_zip_limits_default(&zl);
    zl.inflate_budget_bytes = UINT64_MAX;
    zcase("deflate-ends-at-chunk-end", &a, NUMPY, &zl, OK, NULL, "accept");
}

/* The archive API's arguments and limits, and members loaded as raw bytes. */
static void crafted_api(void)
{
    tu_current = "archive API";
    static zarch a;
    npyg_ctx *ctx = npyg_ctx_new(NULL);
    npyg_zip *z = (npyg_zip *)&a; /* must be reset to NULL by a failed open */
    npyg_zip_limits zl;
    npyg_limits lim;
    npyg_limits_default(&lim);
    zbuild(&a, &(zmem){0}, 1, false, NULL);

    /* each limit out of its range is refused, not clamped */
    for (int k = 0; k < 3; k++) {
        npyg_zip_limits_default(&zl);
        if (k == 0) zl.max_members = NPYG_MAX_MEMBERS_CAP + 1;
        if (k == 1) zl.max_name_bytes = 0;
        if (k == 2) zl.max_name_bytes = NPYG_MAX_NAME_BYTES_CAP + 1;
        TU_CHECK(npyg_zip_worst_case_alloc(&lim, &zl) == 0, "worst case of invalid zip limits %d", k);
        npyg_set_input_buffer(ctx, a.b, a.len);
        TU_CHECK(npyg_zip_open(ctx, &zl, &z) == NPYG_EINVAL && z == NULL, "invalid zip limits %d", k);
        npyg_set_input_fd(ctx, 0);
        TU_CHECK(npyg_zip_open(ctx, &zl, &z) == NPYG_EINVAL, "invalid zip limits %d, fd", k);
    }
    npyg_limits bad = lim;
    bad.max_header_bytes = 0;
    TU_CHECK(npyg_worst_case_alloc(&bad) == 0 && npyg_zip_worst_case_alloc(&bad, NULL) == 0, "invalid npy limits");

    npyg_set_input_buffer(NULL, a.b, a.len);
    TU_CHECK(npyg_zip_open(NULL, NULL, &z) == NPYG_EINVAL, "NULL context");
    npyg_set_input_fd(NULL, 0);
    TU_CHECK(npyg_zip_open(NULL, NULL, &z) == NPYG_EINVAL, "NULL context, fd");
    npyg_set_input_fd(ctx, 0);
    TU_CHECK(npyg_zip_open(ctx, NULL, NULL) == NPYG_EINVAL, "NULL output, fd");
    npyg_set_input_buffer(ctx, NULL, 5);
    TU_CHECK(npyg_zip_open(ctx, NULL, &z) == NPYG_EINVAL, "NULL buffer with a length");
    TU_CHECK(npyg_zip_count(NULL) == 0 && npyg_zip_member(NULL, 0) == NULL, "NULL archive");
    TU_CHECK(npyg_zip_validate_member(NULL, 0) == NPYG_EINVAL && npyg_zip_open_member(NULL, 0) == NPYG_EINVAL,
             "NULL archive, member");
    npyg_pickle_report *rep = (npyg_pickle_report *)&a;
    TU_CHECK(npyg_zip_scan_member_pickle(NULL, 0, NULL, &rep) == NPYG_EINVAL && rep == NULL, "NULL archive, scan");

    /* descriptors: closed, and positioned past the end of the file */
    int fd = dup(2);
    close(fd);
    npyg_set_input_fd(ctx, fd);
    TU_CHECK(npyg_zip_open(ctx, NULL, &z) == NPYG_EIO, "closed descriptor");
    FILE *f = tmpfile();
    fd = f ? dup(fileno(f)) : -1;
    if (f) fclose(f);
    if (fd >= 0 && write(fd, a.b, a.len) == (ssize_t)a.len) {
        lseek(fd, (off_t)a.len + 5, SEEK_SET);
        npyg_set_input_fd(ctx, fd);
        TU_CHECK(npyg_zip_open(ctx, NULL, &z) == NPYG_EIO, "position past the end");
        /* each allocation of an open from a descriptor failing in turn */
        for (long n = 0; n < 64; n++) {
            tu_alloc t;
            npyg_alloc al;
            npyg_ctx *c = tu_ctx_failing_at(&t, &al, n);
            if (!c) continue;
            lseek(fd, 0, SEEK_SET);
            npyg_set_input_fd(c, fd);
            int rc = npyg_zip_open(c, NULL, &z);
            if (!rc) rc = npyg_zip_validate_member(z, 0);
            npyg_zip_close(z);
            npyg_ctx_free(c);
            TU_CHECK((rc == 0 || rc == NPYG_ENOMEM) && t.now == 0, "allocation %ld fails: %s", n, npyg_error_name(rc));
            if (rc == 0) break;
        }
    } else {
        TU_CHECK(0, "temporary file");
    }
    if (fd >= 0) close(fd);

    /* members that are not .npy, loaded: numpy hands back their bytes */
    zmem raw[2] = {{.name = "r.bin", .data = (const uint8_t *)"hello world", .len = 11},
                   {.name = "bad.bin", .data = (const uint8_t *)"hello world", .len = 11, .declared = true,
                    .usize = 11, .crc = 0x0badc0deu}};
    zbuild(&a, raw, 2, false, NULL);
    char buf[16];
    npyg_set_input_buffer(ctx, a.b, a.len);
    TU_CHECK(npyg_zip_open(ctx, NULL, &z) == 0, "raw members: open");
    if (z) {
        TU_CHECK(npyg_zip_open_member(z, 0) == 0 && npyg_get_info(ctx) == NULL, "raw member: open");
        TU_CHECK(npyg_zip_read_member(z, buf, 10) == NPYG_EINVAL, "raw member: wrong size");
        TU_CHECK(npyg_zip_read_member(z, buf, 11) == 0 && !memcmp(buf, "hello world", 11), "raw member: bytes");
        TU_CHECK(npyg_zip_read_member(z, buf, 11) == NPYG_EBADSTATE, "raw member: read twice");
        TU_CHECK(npyg_zip_open_member(z, 0) == 0 && npyg_zip_read_member(z, NULL, 0) == 0, "raw member: drained");
        TU_CHECK(npyg_zip_open_member(z, 1) == 0 && npyg_zip_read_member(z, buf, 11) == NPYG_EZIP_CRC,
                 "raw member with a wrong CRC");
        TU_CHECK(npyg_zip_scan_member_pickle(z, 5, NULL, NULL) == NPYG_EINVAL, "scan: no such member");
        npyg_zip_close(z);
    }
    npyg_ctx_free(ctx);
}

/* Members with numpy-read fields in archives whose structure is expected
   to open, other than the member expected to fail. */
static size_t members_with_fields(const json_t *e)
{
    const char *ecode = json_string_value(json_object_get(e, "npyguard_error"));
    const char *emember = json_string_value(json_object_get(e, "npyguard_error_member"));
    if (ecode && !emember) return 0;
    size_t n = 0;
    const json_t *ms = json_object_get(e, "members");
    for (size_t k = 0; k < json_array_size(ms); k++) {
        const json_t *jm = json_array_get(ms, k);
        const char *name = json_string_value(json_object_get(jm, "name"));
        if (json_object_get(jm, "payload_sha256") && !(emember && name && !strcmp(name, emember))) n++;
    }
    return n;
}

int main(int argc, char **argv)
{
    const char *usage = "usage: test_npz CORPUS_NPZ_DIR [--corpus-only | --stream-bomb-only]\n"
                        "       test_npz --crafted [DUMP_DIR]\n";
    if (argc >= 2 && !strcmp(argv[1], "--crafted")) {
        /* With DUMP_DIR, each archive is also written there, and
           DUMP_DIR/zipfile.tsv lists the zipfile verdict each case claims. */
        if (argc == 3) {
            dump_dir = argv[2];
            char path[4096];
            snprintf(path, sizeof path, "%s/zipfile.tsv", dump_dir);
            dump_list = fopen(path, "w");
            if (!dump_list) { perror(path); return 2; }
        }
        crafted();
        crafted_entries();
        crafted_locals();
        crafted_streams();
        crafted_more();
        crafted_api();
        if (dump_list) fclose(dump_list);
        tu_current = "totals";
        TU_CHECK(crafted_cases >= 100, "only %zu crafted cases", crafted_cases);
        printf("crafted archives: %zu cases\n", crafted_cases);
        return tu_finish();
    }
    if (argc < 2 || argc > 3) {
        fputs(usage, stderr);
        return 2;
    }
    bool corpus = true, bomb = true;
    if (argc == 3 && !strcmp(argv[2], "--corpus-only")) bomb = false;
    else if (argc == 3 && !strcmp(argv[2], "--stream-bomb-only")) corpus = false;
    else if (argc == 3) {
        fputs(usage, stderr);
        return 2;
    }
    if (bomb) stream_bomb(argv[1]);
    if (!corpus) return tu_finish();
    json_t *m = tu_load_manifest(argv[1]);
    if (!m) return 2;
    const json_t *prefix_cases = json_object_get(m, "prefix_cases");
    const char *name;
    json_t *e;
    size_t n = 0, want_fields = 0;
    json_object_foreach(json_object_get(m, "files"), name, e) {
        check_archive(argv[1], name, e, prefix_cases);
        want_fields += members_with_fields(e);
        n++;
    }
    torture(argv[1], "valid/savez-compressed-several.npz");
    torture(argv[1], "valid/descriptor-deflate.npz");
    check_limits(argv[1]);
    tu_current = "totals";
    TU_AT_LEAST(n, json_object_size(json_object_get(m, "files")), "archives in the manifest");
    TU_AT_LEAST(fields_checked, want_fields, "members whose numpy-read fields were compared");
    TU_AT_LEAST(prefixes_checked, json_array_size(prefix_cases), "prefix cases");
    json_decref(m);
    printf("npz corpus: %zu archives, %zu members with every field compared\n", n, fields_checked);
    return tu_finish();
}
