/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Header parsing from a buffer (npyg_parse_header). Beyond the invariants
 * every result must satisfy: a successful parse needs no byte past
 * data_offset and gives the same answer from exactly that prefix; any
 * shorter prefix fails as a truncation; npyg_validate of the same
 * bytes reaches the same verdict on the header; and the writer-form
 * recogniser (the fast path) takes only header texts that the general
 * literal parser reads to the very same tree.
 */
#include "fuzz_common.h"

#include <string.h>

/* The fast-path check calls the library's internals, which only a static
   build links: a shared library exports its public npyg_ symbols alone
   (the replay drivers of a shared build run without the check). */
#ifdef NPYG_STATIC
#include "../parser/src/internal.h"

/* The header text as header.c would see it: a 3.0 text only when it is
   UTF-8, and none holding a NUL (both refused before either parser runs). */
static const char *header_text(const uint8_t *file, size_t len, int *major, size_t *hlen)
{
    const char *text = npyg__image_header(file, len, major, hlen);
    size_t bad;
    if (!text || (*major == 3 && npyg__utf8_check((const unsigned char *)text, *hlen, &bad)) ||
        memchr(text, '\0', *hlen))
        return NULL;
    return text;
}

static void writer_form_agrees(const uint8_t *file, size_t len)
{
    int major;
    size_t h;
    const char *text = header_text(file, len, &major, &h);
    if (!text) return;
    npyg_ctx *ctx = npyg_ctx_new(NULL);
    if (!ctx) return;
    ctx->info.version_major = major;
    npyg__value *fast = NULL, *general = NULL;
    npyg__span descr_text;
    if (npyg__parse_writer_form(ctx, text, h, &fast, &descr_text) == 0 && fast) {
        npyg__lit_opts opts = {.allow_py2long = major != 3, .latin1 = major != 3};
        unsigned warnings = 0;
        int grc = npyg__parse_literal(ctx, text, h, &opts, &general, &warnings);
        FUZZ_CHECK(grc == 0, "the writer form took a header the general parser refuses with %s", npyg_error_name(grc));
        FUZZ_CHECK(grc != 0 || npyg__same_tree(fast, general), "%s", "the writer form and the general parser built different trees");
        FUZZ_CHECK(warnings == 0, "the general parser warns (%#x) on a header in writer form", warnings);
    }
    npyg_ctx_free(ctx);
}
#else
static void writer_form_agrees(const uint8_t *file, size_t len)
{
    (void)file;
    (void)len;
}
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *file;
    size_t len;
    fuzz_config cfg;
    fuzz_begin(data, size, &file, &len, &cfg);

    fuzz_alloc fa;
    npyg_ctx *ctx = fuzz_start(&cfg, &fa, 0);
    if (!ctx) return 0;

    fuzz_result r;
    bool before = fa.failed;
    int rc = npyg_parse_header(ctx, file, len);
    fuzz_check_result(ctx, rc, CALL_HEADER, len, &cfg, &cfg.limits, &r);
    bool inject = fuzz_refused(&fa, before, rc, "parse_header");

    /* The results stay readable until the next call. */
    if (rc == 0) FUZZ_CHECK(npyg_get_info(ctx) == npyg_get_info(ctx), "npyg_get_info is not stable");

    if (!inject) {
        if (rc == 0) {
            uint64_t off = r.info.data_offset;
            fuzz_result p;
            before = fa.failed;
            int rc2 = npyg_parse_header(ctx, file, (size_t)off);
            fuzz_check_result(ctx, rc2, CALL_HEADER, off, &cfg, &cfg.limits, &p);
            if (!(fa.failed && !before)) {
                FUZZ_CHECK(rc2 == 0, "parse_header of the first data_offset bytes: %s", npyg_error_name(rc2));
                fuzz_same_info(&r, &p, false, "parse_header of the prefix");
            }
            /* one shorter prefix, chosen by the trailer */
            size_t cut = (size_t)(cfg.seed % off);
            before = fa.failed;
            rc2 = npyg_parse_header(ctx, file, cut);
            fuzz_check_result(ctx, rc2, CALL_HEADER, cut, &cfg, &cfg.limits, &p);
            if (!(fa.failed && !before)) {
                int want = cut < (r.info.version_major == 1 ? 10u : 12u) ? NPYG_ETRUNC_PREAMBLE : NPYG_ETRUNC_HEADER;
                FUZZ_CHECK(rc2 == want, "a %zu-byte prefix of a good header gives %s", cut, npyg_error_name(rc2));
                FUZZ_CHECK(p.err.offset == cut, "truncation of %zu bytes reported at %llu", cut,
                           (unsigned long long)p.err.offset);
            }
        }
        fuzz_result v;
        before = fa.failed;
        npyg_set_input_buffer(ctx, file, len);
        int rcv = npyg_validate(ctx);
        fuzz_check_result(ctx, rcv, CALL_VALIDATE, len, &cfg, &cfg.limits, &v);
        if (!(fa.failed && !before)) {
            if (rc == 0) {
                FUZZ_CHECK(rcv == 0 || rcv == NPYG_ETRUNC_PAYLOAD || rcv == NPYG_ETRAILING || rcv == NPYG_EPOLYGLOT,
                           "header parses, but validate_buffer says %s", npyg_error_name(rcv));
                if (rcv == 0) fuzz_same_info(&r, &v, false, "validate_buffer");
            } else {
                FUZZ_CHECK(rcv == rc && v.err.offset == r.err.offset,
                           "parse_header says %s at %llu, validate_buffer %s at %llu", npyg_error_name(rc),
                           (unsigned long long)r.err.offset, npyg_error_name(rcv),
                           (unsigned long long)v.err.offset);
            }
        }
    }

    npyg_ctx_free(ctx);
    fuzz_alloc_check_empty(&fa);
    writer_form_agrees(file, len);
    return 0;
}
