/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The descr value alone. The input is a Python literal fragment placed as
 * the value of 'descr' in an otherwise canonical header (version, shape and
 * profile from the trailer), so every mutation lands in the dtype parser
 * instead of breaking the framing. When it parses:
 *   - npyg_format_descr's spelling is a fixed point: written into a
 *     canonical header it parses under the strict profile to the same
 *     spelling and itemsize;
 *   - the file completed with its payload validates.
 */
#include "fuzz_common.h"

#include <stdlib.h>
#include <string.h>

static const char *const shapes[4] = {"()", "(1,)", "(2, 3)", "(0,)"};

/* A .npy file: preamble, "{'descr': <descr>, ...}" padded to a 64-byte
   data offset with a final newline, then payload zero bytes. */
static uint8_t *make_file(int major, const char *descr, size_t dlen, const char *shape,
                          uint64_t payload, size_t *out_len)
{
    static const char head[] = "{'descr': ", mid[] = ", 'fortran_order': False, 'shape': ", tail[] = ", }";
    size_t pre = major == 1 ? 10 : 12;
    size_t dict = strlen(head) + dlen + strlen(mid) + strlen(shape) + strlen(tail);
    size_t hlen = dict + 1;
    hlen += (64 - (pre + hlen) % 64) % 64;
    if (major == 1 && hlen > 0xFFFF) return NULL;
    size_t total = pre + hlen + (size_t)payload;
    uint8_t *f = malloc(total ? total : 1);
    FUZZ_CHECK(f != NULL, "out of memory in the harness");
    memcpy(f, "\x93NUMPY", 6);
    f[6] = (uint8_t)major;
    f[7] = 0;
    for (size_t k = 0; k < pre - 8; k++) f[8 + k] = (uint8_t)(hlen >> (8 * k));
    uint8_t *p = f + pre;
    memcpy(p, head, strlen(head)); p += strlen(head);
    memcpy(p, descr, dlen); p += dlen;
    memcpy(p, mid, strlen(mid)); p += strlen(mid);
    memcpy(p, shape, strlen(shape)); p += strlen(shape);
    memcpy(p, tail, strlen(tail)); p += strlen(tail);
    memset(p, ' ', hlen - dict - 1);
    f[pre + hlen - 1] = '\n';
    memset(f + pre + hlen, 0, (size_t)payload);
    *out_len = total;
    return f;
}

static bool ascii(const char *s, size_t n)
{
    for (size_t k = 0; k < n; k++)
        if ((unsigned char)s[k] >= 0x80) return false;
    return true;
}

/* format(parse(format(d))) == format(d), under the strict profile. */
static void round_trip(const char *spelled, size_t n, uint64_t itemsize)
{
    size_t len;
    uint8_t *f = make_file(ascii(spelled, n) ? 1 : 3, spelled, n, "()", 0, &len);
    if (!f) f = make_file(2, spelled, n, "()", 0, &len);
    npyg_limits l;
    npyg_limits_default(&l);
    l.max_header_bytes = len < NPYG_MAX_HEADER_BYTES_CAP ? len : NPYG_MAX_HEADER_BYTES_CAP;
    if (l.max_header_bytes < NPYG_DEFAULT_MAX_HEADER_BYTES) l.max_header_bytes = NPYG_DEFAULT_MAX_HEADER_BYTES;
    l.max_dims = UINT32_MAX;
    l.max_fields = UINT32_MAX;
    l.max_depth = NPYG_MAX_DEPTH_CAP;
    l.max_alloc_bytes = UINT64_C(1) << 30;
    fuzz_alloc fa;
    fuzz_alloc_init(&fa, &l, 0);
    npyg_options opt = {NPYG_PROFILE_STRICT, &l, &fa.alc, 0};
    npyg_ctx *ctx = npyg_ctx_new(&opt);
    FUZZ_CHECK(ctx != NULL, "npyg_ctx_new for the round trip");
    fuzz_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.profile = NPYG_PROFILE_STRICT;
    cfg.limits = l;
    fuzz_result r;
    int rc = npyg_parse_header(ctx, f, len);
    fuzz_check_result(ctx, rc, CALL_HEADER, len, &cfg, &l, &r);
    FUZZ_CHECK(rc == 0, "descr %s as numpy would write it fails to parse: %s at %llu: %s", spelled,
               npyg_error_name(rc), (unsigned long long)r.err.offset, r.err.message);
    const npyg_info *in = npyg_get_info(ctx);
    size_t n2 = npyg_format_descr(in->dtype, NULL, 0);
    char *again = malloc(n2 + 1);
    FUZZ_CHECK(again != NULL, "out of memory in the harness");
    npyg_format_descr(in->dtype, again, n2 + 1);
    FUZZ_CHECK(n2 == n && !memcmp(again, spelled, n), "descr %s reads back as %s", spelled, again);
    FUZZ_CHECK(in->dtype->itemsize == itemsize, "descr %s: itemsize %llu, then %llu", spelled,
               (unsigned long long)itemsize, (unsigned long long)in->dtype->itemsize);
    free(again);
    npyg_ctx_free(ctx);
    fuzz_alloc_check_empty(&fa);
    free(f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *frag;
    size_t flen;
    fuzz_config cfg;
    fuzz_begin(data, size, &frag, &flen, &cfg);
    if (flen > (1u << 20)) return -1;

    int major = 1 + (int)((cfg.seed >> 1) % 3u);
    const char *shape = shapes[cfg.extra];
    size_t len;
    uint8_t *f = make_file(major, (const char *)frag, flen, shape, 0, &len);
    if (!f) f = make_file(major = 2, (const char *)frag, flen, shape, 0, &len);

    fuzz_alloc fa;
    npyg_ctx *ctx = fuzz_start(&cfg, &fa, 0);
    if (!ctx) {
        free(f);
        return 0;
    }

    fuzz_result r;
    bool before = fa.failed;
    int rc = npyg_parse_header(ctx, f, len);
    fuzz_check_result(ctx, rc, CALL_HEADER, len, &cfg, &cfg.limits, &r);
    fuzz_refused(&fa, before, rc, "parse_header");
    if (rc == 0) {
        /* the framing around the fragment is fixed: only the descr varies */
        const npyg_info *in = npyg_get_info(ctx);
        FUZZ_CHECK(in->version_major == major && in->data_offset % 64 == 0, "framing changed");
        size_t n = npyg_format_descr(in->dtype, NULL, 0);
        char *spelled = malloc(n + 1);
        FUZZ_CHECK(spelled != NULL, "out of memory in the harness");
        npyg_format_descr(in->dtype, spelled, n + 1);
        uint64_t itemsize = in->dtype->itemsize, payload = in->payload_bytes;
        round_trip(spelled, n, itemsize);
        free(spelled);

        if (payload <= 4096) {
            size_t flen2;
            uint8_t *whole = make_file(major, (const char *)frag, flen, shape, payload, &flen2);
            FUZZ_CHECK(whole != NULL, "could not rebuild the file");
            fuzz_result v;
            before = fa.failed;
            npyg_set_input_buffer(ctx, whole, flen2);
            int rcv = npyg_validate(ctx);
            fuzz_check_result(ctx, rcv, CALL_VALIDATE, flen2, &cfg, &cfg.limits, &v);
            if (!(fa.failed && !before)) {
                FUZZ_CHECK(rcv == 0, "the header parses but the complete file gives %s", npyg_error_name(rcv));
                fuzz_same_info(&r, &v, false, "validate_buffer of the complete file");
            }
            free(whole);
        }
    }
    npyg_ctx_free(ctx);
    fuzz_alloc_check_empty(&fa);
    free(f);
    return 0;
}
