/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The static pickle scanner. The input is a .npy file whose payload is
 * scanned (npyg_pickle_scan_npy), or, when the trailer's first "extra"
 * bit is set, a bare pickle (npyg_pickle_scan). It goes through a buffer
 * input and through a read callback in chunks of pseudo-random size
 * (optionally failing once); both must give the same report. Trailer bits
 * 4-6 pick the scanner's limits, so that each limit is reached.
 *
 * Invariants: a report whenever the code is not ENOMEM/EINVAL/ELIMIT_ALLOC,
 * with status equal to the code; no more than the limits allow; imports'
 * names NUL-terminated at their lengths; the formatted list printable;
 * everything allocated within npyg_pickle_worst_case_alloc on top of the
 * context's bound, and freed.
 */
#include "fuzz_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Chunk sizes: byte by byte, small, or all it asked for (twice as often). */
static size_t chunk(uint32_t x, size_t asked)
{
    return (x & 3u) == 0 ? 1 : (x & 3u) == 1 ? 1 + (x >> 8) % 16u : asked;
}

static void pickle_limits(uint32_t raw, npyg_pickle_limits *l)
{
    npyg_pickle_limits_default(l);
    switch ((raw >> 4) & 7u) {
    case 4:
        l->max_bytes = 64; l->max_ops = 16; l->max_memo = 4; l->max_stack = 4;
        l->max_string_bytes = 16; l->max_imports = 2;
        break;
    case 5:
        l->max_memo = 64; l->max_stack = 64; l->max_string_bytes = 512; l->max_imports = 8;
        break;
    case 6: l->max_ops = 1000; break;
    case 7: l->max_bytes = 256; break;
    default: break;
    }
}

/* Everything about a report that a second input path must reproduce. */
static uint64_t report_hash(int rc, const npyg_ctx *ctx, const npyg_pickle_report *r)
{
    uint64_t h = fuzz_hash(FUZZ_HASH_INIT, &rc, sizeof rc);
    if (rc) {
        uint64_t off = npyg_last_error(ctx)->offset;
        h = fuzz_hash(h, &off, sizeof off);
    }
    if (!r) return h;
    uint64_t v[6] = {(uint64_t)r->status, (uint64_t)r->protocol, r->length, r->opcodes, r->flags, r->nimports};
    h = fuzz_hash(h, v, sizeof v);
    for (uint32_t i = 0; i < r->nimports; i++) {
        const npyg_pickle_import *m = &r->imports[i];
        h = fuzz_hash(h, m->module, m->module_len + 1);
        h = fuzz_hash(h, m->name, m->name_len + 1);
        uint64_t w[4] = {m->flags, m->refs, m->offset, (uint64_t)(int64_t)m->ext_code};
        h = fuzz_hash(h, w, sizeof w);
    }
    return h;
}

static void check_report(const npyg_ctx *ctx, int rc, const npyg_pickle_report *r, const npyg_pickle_limits *l,
                         size_t len)
{
    fuzz_check_error(ctx, rc, len);
    bool none = rc == NPYG_ENOMEM || rc == NPYG_EINVAL || rc == NPYG_ELIMIT_ALLOC ||
                (rc >= 10 && rc < 20) || rc == NPYG_ELIMIT_HEADER || rc == NPYG_EIO;
    if (!r) {
        FUZZ_CHECK(none, "no report after %s", npyg_error_name(rc));
        return;
    }
    FUZZ_CHECK(r->status == rc, "report status %d, call %d", r->status, rc);
    FUZZ_CHECK(rc == 0 || (rc >= NPYG_EPICKLE && rc <= NPYG_ELIMIT_PICKLE_IMPORTS) || rc == NPYG_EIO,
               "a report after %s", npyg_error_name(rc));
    FUZZ_CHECK(r->length <= len && r->length <= l->max_bytes, "scanned %llu bytes of %zu",
               (unsigned long long)r->length, len);
    FUZZ_CHECK(r->opcodes <= l->max_ops && r->nimports <= l->max_imports, "past the limits");
    FUZZ_CHECK(r->protocol >= 0 && r->protocol <= 5, "protocol %d", r->protocol);
    FUZZ_CHECK(r->nimports == 0 || r->imports != NULL, "imports missing");
    for (uint32_t i = 0; i < r->nimports; i++) {
        const npyg_pickle_import *m = &r->imports[i];
        FUZZ_CHECK(m->module_len <= NPYG_PICKLE_NAME_MAX && m->name_len <= NPYG_PICKLE_NAME_MAX, "long name");
        FUZZ_CHECK(m->module[m->module_len] == '\0' && m->name[m->name_len] == '\0', "name not terminated");
        FUZZ_CHECK(m->refs >= 1 && m->offset < len, "refs %u offset %llu", m->refs, (unsigned long long)m->offset);
        FUZZ_CHECK(!(m->flags & NPYG_PI_EXT) == (m->ext_code == 0), "extension code");
    }
    size_t need = npyg_pickle_format_imports(r, NULL, 0);
    char *text = malloc(need + 1);
    FUZZ_CHECK(text != NULL, "malloc");
    FUZZ_CHECK(npyg_pickle_format_imports(r, text, need + 1) == need && strlen(text) == need, "format length");
    for (size_t k = 0; k < need; k++)
        FUZZ_CHECK(text[k] >= 0x20 && text[k] < 0x7f, "byte %#x in the formatted imports",
                   (unsigned)(unsigned char)text[k]);
    free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *file;
    size_t len;
    fuzz_config cfg;
    fuzz_begin(data, size, &file, &len, &cfg);
    bool bare = cfg.extra & 1u;
    npyg_pickle_limits pl;
    pickle_limits(cfg.raw, &pl);

    fuzz_alloc fa;
    npyg_ctx *ctx = fuzz_start(&cfg, &fa, npyg_worst_case_alloc(&cfg.limits) + npyg_pickle_worst_case_alloc(&pl));
    if (!ctx) return 0;

    /* 1. the buffer */
    bool failed_before = fa.failed;
    npyg_set_input_buffer(ctx, file, len);
    int rc = bare ? npyg_pickle_scan(ctx, &pl) : npyg_pickle_scan_npy(ctx, &pl);
    const npyg_pickle_report *rb = npyg_get_pickle_report(ctx);
    check_report(ctx, rc, rb, &pl, len);
    bool inject = fuzz_refused(&fa, failed_before, rc, "the buffer scan");
    uint64_t hb = report_hash(rc, ctx, rb);
    int rcb = rc;

    /* 2. the read callback */
    fuzz_reader rd;
    fuzz_reader_init(&rd, file, len, &cfg, chunk);
    failed_before = fa.failed;
    npyg_set_input_read(ctx, fuzz_read_cb, &rd);
    rc = bare ? npyg_pickle_scan(ctx, &pl) : npyg_pickle_scan_npy(ctx, &pl);
    const npyg_pickle_report *rs = npyg_get_pickle_report(ctx);
    check_report(ctx, rc, rs, &pl, len);
    FUZZ_CHECK(rd.pos <= len, "read past the end");
    bool inject_s = fa.failed && !failed_before;
    /* A refused allocation wins over a read error: after a read error the
       report is still to be allocated, and without it the call is ENOMEM,
       or NPYG_ELIMIT_ALLOC when the report is over max_alloc_bytes (a walk
       that reached that limit would have stopped before the failed read). */
    if (inject_s) FUZZ_CHECK(rc == NPYG_ENOMEM, "allocation refused, but the callback scan says %s", npyg_error_name(rc));
    else if (rd.failed)
        FUZZ_CHECK(rc == NPYG_EIO || (rc == NPYG_ELIMIT_ALLOC && !rs),
                   "the read callback failed, but the scan says %s", npyg_error_name(rc));
    /* Only the callback path needs a chunk buffer, so only it can hit
       max_alloc_bytes first. */
    if (!inject && !inject_s && !rd.failed && rc != NPYG_ELIMIT_ALLOC && rcb != NPYG_ELIMIT_ALLOC)
        FUZZ_CHECK(report_hash(rc, ctx, rs) == hb, "buffer and callback scans differ (%s)", npyg_error_name(rc));

    npyg_ctx_free(ctx);
    fuzz_alloc_check_empty(&fa);
    return 0;
}
