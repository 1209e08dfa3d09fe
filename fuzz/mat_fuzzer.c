/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Format recognition and the MAT header (npyg_probe_input on a buffer and
 * on a positional callback):
 * the part of HDF5 / MAT v7.3 handling npyguard parses itself (libhdf5
 * reads the rest, in a sandboxed child, and is not fuzzed here).
 * Invariants: only the probe's codes come back, each with a message; a
 * recognised MAT v7.3 header has the fields the format requires and an
 * HDF5 signature at 512; an HDF5 result names the first power-of-two
 * offset that holds the signature, as an independent search finds it; the
 * buffer and a callback handing out the same bytes in short reads agree;
 * and the probe allocates nothing.
 */
#include "fuzz_common.h"

#include <string.h>

static const unsigned char sig[8] = {0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'};

typedef struct {
    const uint8_t *p;
    size_t len;
    uint32_t seed;
} src;

/* Short reads: at most 1 + seed % 7 bytes at a time, as a pipe might. */
static long long short_pread(void *user, void *buf, size_t len, uint64_t off)
{
    src *s = user;
    size_t done = 0;
    while (done < len && off + done < s->len) {
        size_t step = 1 + (s->seed++ % 7u);
        size_t left = s->len - (size_t)(off + done);
        if (step > len - done) step = len - done;
        if (step > left) step = left;
        memcpy((char *)buf + done, s->p + off + done, step);
        done += step;
    }
    return (long long)done;
}

static bool hdf5_first(const uint8_t *p, size_t len, uint64_t *at)
{
    for (uint64_t off = 0; off + 8 <= len; off = off ? off * 2 : 512)
        if (!memcmp(p + off, sig, 8)) {
            *at = off;
            return true;
        }
    return false;
}

/* npyg_probe_input on the input set last, its info copied (zeros when
   there is none), so that two probes can be compared. */
static int probe(npyg_ctx *ctx, npyg_probe_info *info)
{
    int rc = npyg_probe_input(ctx);
    const npyg_probe_info *pi = npyg_get_probe_info(ctx);
    *info = pi ? *pi : (npyg_probe_info){0};
    return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *file;
    size_t len;
    fuzz_config cfg;
    fuzz_begin(data, size, &file, &len, &cfg);

    cfg.fail_alloc = 0; /* the probe allocates nothing to fail */
    fuzz_alloc fa;
    npyg_ctx *ctx = fuzz_start(&cfg, &fa, 0);
    if (!ctx) return 0;
    uint64_t live = fa.live_bytes;

    npyg_probe_info a, b;
    npyg_set_input_buffer(ctx, file, len);
    int rc = probe(ctx, &a);
    npyg_error ea = *npyg_last_error(ctx);
    FUZZ_CHECK(fa.live_bytes == live, "the probe allocated %llu bytes", (unsigned long long)(fa.live_bytes - live));
    FUZZ_CHECK(rc == 0 || rc == NPYG_EMAT_V5 || rc == NPYG_EMAT_V4 || rc == NPYG_EMAT_HEADER ||
                   rc == NPYG_EPOLYGLOT,
               "probe returned %s", npyg_error_name(rc));
    FUZZ_CHECK(ea.code == rc, "last error %d, returned %d", ea.code, rc);
    if (rc) {
        FUZZ_CHECK(ea.message[0] != '\0', "%s without a message", npyg_error_name(rc));
        FUZZ_CHECK(ea.offset <= (len > 512 ? len : 512), "error offset %llu past the input",
                   (unsigned long long)ea.offset);
    }
    if (rc == NPYG_EMAT_V5) FUZZ_CHECK(a.format == NPYG_FORMAT_MAT5 && a.version == 0x0100, "v5 fields");
    if (rc == NPYG_EMAT_V4) FUZZ_CHECK(a.format == NPYG_FORMAT_MAT4 && len >= 20, "v4 fields");
    if (rc == NPYG_EPOLYGLOT) {
        uint64_t at = UINT64_MAX;
        FUZZ_CHECK(a.format == NPYG_FORMAT_NPY || a.format == NPYG_FORMAT_NPZ || a.format == NPYG_FORMAT_RA,
                   "polyglot of format %d", (int)a.format);
        FUZZ_CHECK(hdf5_first(file, len, &at) && at == a.hdf5_offset && ea.offset == at,
                   "polyglot at %llu, the first signature is at %llu", (unsigned long long)a.hdf5_offset,
                   (unsigned long long)at);
    }
    if (rc == 0) {
        uint64_t sig_at = 0;
        FUZZ_CHECK(a.format == NPYG_FORMAT_HDF5 || a.format == NPYG_FORMAT_MAT73 || a.format == NPYG_FORMAT_UNKNOWN ||
                       !hdf5_first(file, len, &sig_at),
                   "format %d with an HDF5 signature at %llu: a polyglot let through", (int)a.format,
                   (unsigned long long)sig_at);
        switch (a.format) {
        case NPYG_FORMAT_NPY:
            FUZZ_CHECK(len >= 6 && !memcmp(file, "\x93NUMPY", 6), "NPY without the magic");
            break;
        case NPYG_FORMAT_NPZ:
            FUZZ_CHECK(npyg_is_zip(file, len), "zip without PK");
            break;
        case NPYG_FORMAT_RA:
            FUZZ_CHECK(npyg_is_ra(file, len), "RawArray without its magic");
            break;
        case NPYG_FORMAT_MAT73:
            FUZZ_CHECK(len >= 520 && !memcmp(file, "MATLAB 7.3 MAT-file", 19), "MAT73 text");
            FUZZ_CHECK(a.hdf5_offset == 512 && !memcmp(file + 512, sig, 8), "MAT73 without HDF5 at 512");
            FUZZ_CHECK(a.version == 0x0200, "MAT73 version %#x", a.version);
            FUZZ_CHECK(!strcmp(a.endian, "IM") || !strcmp(a.endian, "MI"), "MAT73 endian");
            FUZZ_CHECK(strlen(a.text) <= 116, "MAT text longer than 116");
            for (const char *t = a.text; *t; t++) FUZZ_CHECK(*t >= 0x20 && *t <= 0x7e, "unprintable MAT text");
            break;
        case NPYG_FORMAT_HDF5: {
            uint64_t at = UINT64_MAX;
            FUZZ_CHECK(hdf5_first(file, len, &at) && at == a.hdf5_offset,
                       "HDF5 at %llu, the first signature is at %llu", (unsigned long long)a.hdf5_offset,
                       (unsigned long long)at);
            break;
        }
        case NPYG_FORMAT_UNKNOWN: {
            uint64_t at;
            FUZZ_CHECK(!hdf5_first(file, len, &at) || (len >= 6 && !memcmp(file, "MATLAB", 6)),
                       "an HDF5 signature at %llu went unrecognised", (unsigned long long)at);
            break;
        }
        default:
            npyg_fuzz_fail("probe gave format %d with no error", (int)a.format);
        }
    }

    src s = {file, len, cfg.seed};
    npyg_set_input_pread(ctx, short_pread, &s, len);
    int rc2 = probe(ctx, &b);
    const npyg_error *eb = npyg_last_error(ctx);
    FUZZ_CHECK(rc2 == rc && b.format == a.format && b.hdf5_offset == a.hdf5_offset &&
                   b.version == a.version && b.warnings == a.warnings && !strcmp(a.text, b.text),
               "buffer and short reads disagree: %s/%d vs %s/%d", npyg_error_name(rc), (int)a.format,
               npyg_error_name(rc2), (int)b.format);
    FUZZ_CHECK(eb->offset == ea.offset && !strcmp(eb->message, ea.message), "error differs with short reads");

    npyg_ctx_free(ctx);
    fuzz_alloc_check_empty(&fa);
    return 0;
}
