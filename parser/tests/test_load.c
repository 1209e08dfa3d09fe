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
 *  - reading out of turn gives NPYG_EBADSTATE.
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
    int fd = -1, rc;
    tu_chunks ch = {.p = buf, .len = len, .seed = 7, .max = 977};
    if (in == IN_BUFFER) rc = npyg_open_buffer(ctx, buf, len);
    else if (in == IN_FD) {
        fd = open(path, O_RDONLY);
        rc = npyg_open_fd(ctx, fd);
    } else rc = npyg_open_read(ctx, tu_chunked_read, &ch);
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
    int vcode = npyg_validate_buffer(ctx, buf, len);
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
    tu_current = "EBADSTATE";
    char path[4096];
    snprintf(path, sizeof path, "%s/valid/f8-le-2d-F-v1.npy", dir);
    size_t len;
    unsigned char *buf = tu_slurp(path, &len);
    if (!buf) { TU_CHECK(0, "cannot read"); return; }
    npyg_ctx *ctx = npyg_ctx_new(NULL);
    double d[12];
    TU_CHECK(npyg_read_payload(ctx, d, sizeof d) == NPYG_EBADSTATE, "read before any open");
    TU_CHECK(npyg_last_error(ctx)->code == NPYG_EBADSTATE, "last_error");
    TU_CHECK(npyg_open_buffer(ctx, buf, 5) == NPYG_ETRUNC_PREAMBLE, "truncated open");
    TU_CHECK(npyg_read_payload(ctx, d, sizeof d) == NPYG_EBADSTATE, "read after a failed open");
    TU_CHECK(npyg_open_buffer(ctx, buf, len - 1) == NPYG_ETRUNC_PAYLOAD, "payload cut by one: refused at open");
    TU_CHECK(npyg_read_payload(ctx, d, sizeof d) == NPYG_EBADSTATE, "read after a payload refused at open");
    TU_CHECK(npyg_open_buffer(ctx, buf, len) == 0, "open");
    TU_CHECK(npyg_read_payload(ctx, d, sizeof d - 1) == NPYG_EINVAL, "wrong size");
    TU_CHECK(npyg_read_payload(ctx, d, sizeof d) == 0, "read after a wrong size");
    TU_CHECK(npyg_read_payload(ctx, d, sizeof d) == NPYG_EBADSTATE, "second read");
    TU_CHECK(npyg_get_info(ctx) != NULL, "info kept after a refused second read");
    TU_CHECK(npyg_open_buffer(ctx, buf, len) == 0, "reopen");
    TU_CHECK(npyg_validate_buffer(ctx, buf, len) == 0, "validate in between");
    TU_CHECK(npyg_read_payload(ctx, d, sizeof d) == NPYG_EBADSTATE, "read after another call forgot the open");
    /* A pipe cut inside the payload fails at the read, and stays failed. */
    tu_chunks ch = {.p = buf, .len = len - 3, .seed = 1, .max = 64};
    TU_CHECK(npyg_open_read(ctx, tu_chunked_read, &ch) == 0, "open a cut stream");
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
    TU_CHECK(npyg_zip_open_buffer(ctx, buf, len, NULL, &z) == 0, "open archive");
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
    return tu_finish();
}
