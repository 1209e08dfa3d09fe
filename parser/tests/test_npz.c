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
 *  - each zip limit has its own code.
 * Usage: test_npz CORPUS_NPZ_DIR [--corpus-only | --stream-bomb-only]
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
        rc = npyg_zip_open_fd(ctx, fd, zl, &z);
    } else {
        rc = npyg_zip_open_buffer(ctx, buf, len, zl, &z);
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
    TU_CHECK(npyg_zip_open_buffer(ctx, "PK\5\6", 4, NULL, &z) == NPYG_EZIP_EOCD && z == NULL, "4-byte archive");
    TU_CHECK(npyg_zip_open_buffer(ctx, "\x93NUMPY", 6, NULL, &z) == NPYG_EZIP_NOTZIP, "npy is not zip");
    TU_CHECK(npyg_zip_open_buffer(ctx, NULL, 0, NULL, &z) == NPYG_EZIP_NOTZIP, "empty input");
    TU_CHECK(npyg_zip_open_buffer(ctx, "x", 1, NULL, NULL) == NPYG_EINVAL, "NULL out");
    TU_CHECK(npyg_zip_open_fd(ctx, -1, NULL, &z) == NPYG_EIO, "bad fd");
    int p[2];
    if (pipe(p) == 0) {
        TU_CHECK(npyg_zip_open_fd(ctx, p[0], NULL, &z) == NPYG_ENOTREG, "pipe");
        close(p[0]);
        close(p[1]);
    }
    static const unsigned char empty[22] = {'P', 'K', 5, 6};
    TU_CHECK(npyg_zip_open_buffer(ctx, empty, sizeof empty, NULL, &z) == 0 && npyg_zip_count(z) == 0, "empty zip");
    TU_CHECK(npyg_zip_member(z, 0) == NULL, "member out of range");
    TU_CHECK(npyg_zip_validate_member(z, 0) == NPYG_EINVAL, "validate out of range");
    npyg_zip_close(z);
    npyg_zip_close(NULL);

    /* Members may be validated in any order, and again, with the same result. */
    size_t len;
    char path[4096];
    unsigned char *buf = tu_read_case(dir, "valid/savez-compressed-several.npz", path, &len);
    if (buf && npyg_zip_open_buffer(ctx, buf, len, NULL, &z) == 0) {
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
    int rc = npyg_zip_open_fd(ctx, fd, &zl, &z);
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
    const char *usage = "usage: test_npz CORPUS_NPZ_DIR [--corpus-only | --stream-bomb-only]\n";
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
