/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Checks npyguard against corpus/manifest.json, whose expectations were
 * measured with numpy by gen/gen_corpus.py:
 *  - every file through the buffer, descriptor and callback inputs, which
 *    must agree with each other;
 *  - valid files: every header field, descr in numpy's writer form, and
 *    the payload SHA-256; the strict profile accepts them too, since
 *    numpy's writer made them;
 *  - compat files: numpy's verdict, or the documented divergence code;
 *  - invalid and unsafe files: the expected error code;
 *  - the worst-case allocation bound, with an allocator that fails past it;
 *  - every strict prefix of the manifest's prefix cases is refused.
 * Usage: test_corpus CORPUS_DIR DIVERGENCES_TSV
 */
#include "npyguard.h"
#include "testutil.h"

#include <fcntl.h>
#include <stdbool.h>
#include <jansson.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---------------- helpers ---------------- */
static int sha_sink(void *user, const void *data, size_t len)
{
    return EVP_DigestUpdate((EVP_MD_CTX *)user, data, len) == 1 ? 0 : 1;
}

static void hex(const unsigned char *md, char out[65])
{
    for (int k = 0; k < 32; k++) snprintf(out + 2 * k, 3, "%02x", md[k]);
}

/* Files where npyguard deliberately differs from numpy (divergences.tsv). */
static tu_divs divergences;
/* What was checked, held against what the manifest says there is. */
static size_t fields_checked, prefixes_checked;

/* ---------------- one file ---------------- */
static void check_file(const char *dir, const char *name, const json_t *e, json_t *prefix_cases)
{
    char path[4096];
    size_t len;
    unsigned char *buf = tu_read_case(dir, name, path, &len);
    if (!buf) return;

    const char *group = json_string_value(json_object_get(e, "group"));
    const json_t *npy = json_object_get(e, "numpy");
    bool numpy_accepts = strcmp(json_string_value(json_object_get(npy, "verdict")), "accept") == 0;
    const char *ecode = json_string_value(json_object_get(e, "npyguard_error"));
    int want = ecode ? tu_code_of(ecode) : (numpy_accepts ? 0 : -2); /* -2: any refusal */
    if (!strcmp(group, "unsafe")) want = NPYG_EOBJECT;
    const tu_div *div = tu_divs_find(&divergences, name);
    if (div) want = div->code;
    if (!strcmp(group, "invalid")) TU_CHECK(ecode != NULL, "invalid file without an expected code");

    npyg_limits lim;
    npyg_limits_default(&lim);
    tu_alloc cnt;
    tu_alloc_init(&cnt, npyg_worst_case_alloc(&lim));
    npyg_alloc al = tu_allocator(&cnt);
    npyg_options opt = {.limits = &lim, .alloc = &al};
    npyg_ctx *ctx = npyg_ctx_new(&opt);
    TU_CHECK(ctx != NULL, "ctx");
    if (!ctx) { free(buf); return; }

    EVP_MD_CTX *md = EVP_MD_CTX_new();
    EVP_DigestInit_ex(md, EVP_sha256(), NULL);
    npyg_set_payload_sink(ctx, sha_sink, md);
    npyg_set_input_buffer(ctx, buf, len);
    int rc = npyg_validate(ctx);
    int code = rc ? npyg_last_error(ctx)->code : 0;
    if (want == -2) TU_CHECK(rc != 0, "numpy refuses, npyguard accepted");
    else TU_CHECK(code == want, "got %s (%s), want %s", npyg_error_name(code), npyg_last_error(ctx)->message,
               npyg_error_name(want));
    if (rc == 0 && want == 0) {
        tu_check_fields(npyg_get_info(ctx), e);
        fields_checked++;
        unsigned char d[32];
        unsigned int dl;
        EVP_DigestFinal_ex(md, d, &dl);
        char h[65];
        hex(d, h);
        TU_CHECK(strcmp(h, json_string_value(json_object_get(e, "payload_sha256"))) == 0, "payload sha256 %s", h);
    }
    EVP_MD_CTX_free(md);
    npyg_set_payload_sink(ctx, NULL, NULL);

    /* The same verdict through a descriptor and through a callback. */
    int fd = open(path, O_RDONLY);
    npyg_set_input_fd(ctx, fd);
    int rc_fd = npyg_validate(ctx);
    close(fd);
    TU_CHECK(rc_fd == rc, "fd input gives %s, buffer %s", npyg_error_name(rc_fd), npyg_error_name(rc));
    tu_chunks ch = {buf, len, 0, 7, 7};
    npyg_set_input_read(ctx, tu_chunked_read, &ch);
    int rc_cb = npyg_validate(ctx);
    TU_CHECK(rc_cb == rc, "callback input gives %s, buffer %s", npyg_error_name(rc_cb), npyg_error_name(rc));
    if (rc_cb == 0 && want == 0) tu_check_fields(npyg_get_info(ctx), e);

    /* The bound is never exceeded: the allocator above refuses past it. */
    TU_CHECK(cnt.refused == 0 && cnt.peak <= cnt.cap, "allocation bound: peak %llu, bound %llu, refused %u",
          (unsigned long long)cnt.peak, (unsigned long long)cnt.cap, cnt.refused);
    npyg_ctx_free(ctx);
    TU_CHECK(cnt.now == 0, "leak: %llu bytes", (unsigned long long)cnt.now);

    /* numpy's writer made every valid file, so the strict profile accepts it. */
    if (!strcmp(group, "valid") && want == 0) {
        npyg_options so = {.profile = NPYG_PROFILE_STRICT};
        npyg_ctx *sctx = npyg_ctx_new(&so);
        npyg_set_input_buffer(sctx, buf, len);
        int src = npyg_validate(sctx);
        TU_CHECK(src == 0, "strict profile refuses a numpy-written file: %s (%s)", npyg_error_name(src),
              npyg_last_error(sctx)->message);
        npyg_ctx_free(sctx);
    }

    /* The writer-form scanner and the general literal parser agree: a tab
       in the padding sends the same header down the general path. */
    if (!strcmp(group, "valid") && want == 0) {
        unsigned char *alt = malloc(len);
        memcpy(alt, buf, len);
        npyg_ctx *a = npyg_ctx_new(NULL), *g = npyg_ctx_new(NULL);
        npyg_set_input_buffer(a, alt, len);
        int ra = npyg_validate(a);
        const npyg_info *ia = npyg_get_info(a);
        unsigned char *brace = ia ? memchr(alt, '}', (size_t)ia->data_offset) : NULL;
        if (brace && brace[1] == ' ') {
            brace[1] = '\t';
            npyg_set_input_buffer(g, alt, len);
            int rg = npyg_validate(g);
            const npyg_info *ig = npyg_get_info(g);
            char da[4096], dg[4096];
            bool same = ra == 0 && rg == 0 && ig && ia->ndim == ig->ndim && ia->count == ig->count &&
                        ia->payload_bytes == ig->payload_bytes && ia->fortran_order == ig->fortran_order &&
                        (ia->warnings | NPYG_W_NONCANON) == ig->warnings;
            for (uint32_t k = 0; same && k < ia->ndim; k++) same = ia->shape[k] == ig->shape[k];
            if (same) {
                npyg_format_descr(ia->dtype, da, sizeof da);
                npyg_format_descr(ig->dtype, dg, sizeof dg);
                same = strcmp(da, dg) == 0;
            }
            TU_CHECK(same, "general parser and writer-form scanner disagree (%s / %s)", npyg_error_name(ra),
                  npyg_error_name(rg));
        }
        npyg_ctx_free(a);
        npyg_ctx_free(g);
        free(alt);
    }

    /* Every strict prefix of a sampled valid file is refused. */
    size_t np = json_array_size(prefix_cases);
    for (size_t k = 0; k < np; k++) {
        if (strcmp(json_string_value(json_array_get(prefix_cases, k)), name) != 0) continue;
        npyg_ctx *pctx = npyg_ctx_new(NULL);
        size_t accepted = 0;
        for (size_t cut = 0; cut < len; cut++) {
            npyg_set_input_buffer(pctx, buf, cut);
            if (npyg_validate(pctx) == 0) accepted++;
        }
        TU_CHECK(accepted == 0, "%zu strict prefixes accepted", accepted);
        prefixes_checked++;
        npyg_ctx_free(pctx);
    }
    free(buf);
}

int main(int argc, char **argv)
{
    if (tu_bad_args(argc, 3, "test_corpus CORPUS_DIR DIVERGENCES_TSV")) return 2;
    if (tu_divs_load(&divergences, argv[2])) return 2;
    json_t *m = tu_load_manifest(argv[1]);
    if (!m) return 2;
    json_t *files = json_object_get(m, "files");
    json_t *prefix_cases = json_object_get(m, "prefix_cases");
    const char *name;
    json_t *e;
    size_t nfiles = 0, want_files = 0, want_fields = 0;
    json_object_foreach(files, name, e) {
        const char *g = json_string_value(json_object_get(e, "group"));
        if (!strcmp(g, "npz")) continue; /* archives have their own test */
        want_files++;
        /* numpy read its fields and npyguard is expected to accept it. */
        const tu_div *div = tu_divs_lookup(&divergences, name);
        if (json_object_get(e, "payload_sha256") && !json_object_get(e, "npyguard_error") && (!div || div->code == 0))
            want_fields++;
    }
    json_object_foreach(files, name, e) {
        const char *g = json_string_value(json_object_get(e, "group"));
        if (!strcmp(g, "npz")) continue;
        check_file(argv[1], name, e, prefix_cases);
        nfiles++;
    }
    tu_current = "totals";
    TU_AT_LEAST(nfiles, want_files, "files in the manifest");
    TU_AT_LEAST(fields_checked, want_fields, "files whose numpy-read fields were compared");
    TU_AT_LEAST(prefixes_checked, json_array_size(prefix_cases), "prefix cases");
    tu_divs_check_used(&divergences, true);
    json_decref(m);
    tu_divs_free(&divergences);
    printf("corpus: %zu files, %zu with every field compared\n", nfiles, fields_checked);
    return tu_finish();
}
