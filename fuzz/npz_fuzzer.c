/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The .npz walk from a buffer: open (every zip record cross-checked), list
 * the members, validate each one (inflate, sizes, CRC-32, then the .npy
 * checks). Beyond the shared invariants: member records lie inside the
 * archive and in order, a member's array fits in its declared size, errors
 * name a known code with a printable one-line message, a refused
 * allocation is reported as such, and nothing outlives npyg_zip_close and
 * npyg_ctx_free. Inflation is capped small (ratio grace and total bytes)
 * so that one input cannot cost seconds.
 */
#include "fuzz_common.h"

#include <string.h>

#define MAX_MEMBERS_VALIDATED 16

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *file;
    size_t len;
    fuzz_config cfg;
    fuzz_begin(data, size, &file, &len, &cfg);

    npyg_zip_limits zl;
    npyg_zip_limits_default(&zl);
    zl.ratio_grace_bytes = 1u << 20;
    zl.max_total_uncompressed = 64u << 20;
    if (cfg.extra & 1) zl.max_members = 4;
    if (cfg.extra & 2) zl.max_name_bytes = 16;

    uint64_t bound = npyg_zip_worst_case_alloc(&cfg.limits, &zl);
    FUZZ_CHECK(bound >= npyg_worst_case_alloc(&cfg.limits), "the zip bound is below the .npy bound");
    fuzz_alloc fa;
    npyg_ctx *ctx = fuzz_start(&cfg, &fa, bound);
    if (!ctx) return 0;

    npyg_zip *z = NULL;
    bool before = fa.failed;
    npyg_set_input_buffer(ctx, file, len);
    int rc = npyg_zip_open(ctx, &zl, &z);
    if (rc) {
        FUZZ_CHECK(z == NULL, "a failed open left a handle");
        fuzz_check_error(ctx, rc, len);
        FUZZ_CHECK(npyg_last_error(ctx)->offset_space == NPYG_OFFSET_ARCHIVE, "open error %s not in archive space",
                   npyg_error_name(rc));
        fuzz_refused(&fa, before, rc, "zip_open");
    } else {
        FUZZ_CHECK(npyg_is_zip(file, len) == 1, "opened something that does not start like a zip");
        size_t n = npyg_zip_count(z);
        FUZZ_CHECK(n <= zl.max_members, "%zu members over the limit %u", n, (unsigned)zl.max_members);
        FUZZ_CHECK(npyg_zip_member(z, n) == NULL, "member past the end");
        for (size_t i = 0; i < n; i++) {
            const npyg_zip_entry *e = npyg_zip_member(z, i);
            FUZZ_CHECK(e != NULL, "member %zu missing", i);
            FUZZ_CHECK(e->name_len == strlen(e->name), "member %zu: name has a NUL inside", i);
            FUZZ_CHECK(e->name_len <= zl.max_name_bytes, "member %zu: name over the limit", i);
            FUZZ_CHECK(e->method == 0 || e->method == 8, "member %zu: method %u", i, e->method);
            FUZZ_CHECK(e->header_offset < e->data_offset && e->data_offset <= e->end_offset &&
                           e->end_offset <= len,
                       "member %zu: records out of order or past the archive", i);
            FUZZ_CHECK(e->data_offset + e->compressed_size <= e->end_offset, "member %zu: data past its end", i);
            if (e->method == 0)
                FUZZ_CHECK(e->compressed_size == e->uncompressed_size, "stored member %zu changes size", i);
        }
        for (size_t k = 0; k < n && k < MAX_MEMBERS_VALIDATED; k++) {
            size_t i = (cfg.seed + k) % n; /* any order, and again */
            const npyg_zip_entry *e = npyg_zip_member(z, i);
            before = fa.failed;
            int rm = npyg_zip_validate_member(z, i);
            if (fa.failed && !before) {
                FUZZ_CHECK(rm == NPYG_ENOMEM, "allocation refused, but member %zu says %s", i,
                           npyg_error_name(rm));
                break;
            }
            if (rm) {
                const npyg_error *me = npyg_last_error(ctx);
                fuzz_check_error(ctx, rm, me->offset_space == NPYG_OFFSET_ARCHIVE ? len : e->uncompressed_size);
                continue;
            }
            const npyg_info *in = npyg_get_info(ctx);
            if (!in) continue; /* not .npy, accepted with a warning */
            fuzz_result r;
            fuzz_check_result(ctx, rm, CALL_VALIDATE, e->uncompressed_size, &cfg, &cfg.limits, &r);
            FUZZ_CHECK(in->data_offset + in->payload_bytes + in->trailing_bytes == e->uncompressed_size,
                       "member %zu: header, payload and trailing bytes do not add up to its size", i);
        }
        npyg_zip_close(z);
    }
    npyg_ctx_free(ctx);
    fuzz_alloc_check_empty(&fa);
    return 0;
}
