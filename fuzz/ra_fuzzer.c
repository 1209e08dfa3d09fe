/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RawArray (.ra) validation. The same bytes go through npyg_ra_validate
 * on a buffer input, on a read callback (chunks of pseudo-random size,
 * optionally failing once) and, when the trailer asks, on a descriptor of
 * an in-memory file. Beyond the shared error checks:
 * the paths agree; a result's fields are consistent with each other, the
 * limits and the input (header + data + metadata is the file); the sink
 * sees exactly the data segment as stored; a refused allocation is
 * reported as such; everything stays within npyg_ra_worst_case_alloc and
 * nothing outlives npyg_ctx_free.
 */
#if !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 200809L /* lseek, close */
#endif
#include "fuzz_common.h"

#include <string.h>
#if defined(__linux__)
#include <unistd.h>
#endif

/* Chunk sizes: all it asked for, or up to 64 bytes. */
static size_t chunk(uint32_t x, size_t asked) { return (x & 1u) ? asked : 1 + (x >> 8) % 64u; }

typedef struct ra_result {
    int rc;
    npyg_error err;
    bool have;
    npyg_ra_info info;
    uint64_t dims_hash;
} ra_result;

static void check(const npyg_ctx *ctx, int rc, const uint8_t *file, size_t len, const fuzz_config *cfg,
                  const fuzz_sink *ss, ra_result *out, const char *what)
{
    memset(out, 0, sizeof *out);
    out->rc = rc;
    fuzz_check_error(ctx, rc, len);
    out->err = *npyg_last_error(ctx);
    FUZZ_CHECK(rc == 0 || rc == NPYG_EINVAL || rc == NPYG_ENOMEM || rc == NPYG_EIO ||
                   (rc >= NPYG_ERA_MAGIC && rc <= NPYG_ERA_LZ4_SIZE) || rc == NPYG_ELIMIT_DIMS ||
                   rc == NPYG_ELIMIT_PAYLOAD || rc == NPYG_ELIMIT_ALLOC || rc == NPYG_ELIMIT_RATIO || rc == NPYG_EPOLYGLOT,
               "%s: %s is not a .ra result", what, npyg_error_name(rc));
    FUZZ_CHECK(npyg_get_info(ctx) == NULL, "%s: .npy info after a .ra call", what);
    const npyg_ra_info *in = npyg_get_ra_info(ctx);
    FUZZ_CHECK((rc == 0) == (in != NULL), "%s: info %s after %s", what, in ? "set" : "NULL", npyg_error_name(rc));
    if (cfg->sink && ss->refused) FUZZ_CHECK(rc == NPYG_EIO, "%s: the sink refused, result %s", what, npyg_error_name(rc));
    if (!in) return;
    out->have = true;
    out->info = *in;
    const npyg_limits *l = &cfg->limits;
    FUZZ_CHECK(npyg_is_ra(file, len) == 1, "%s: accepted without the magic", what);
    FUZZ_CHECK((in->flags & ~UINT64_C(3)) == 0, "%s: flags %llx", what, (unsigned long long)in->flags);
    FUZZ_CHECK(in->big_endian == (int)(in->flags & 1) && in->compressed == (int)(in->flags >> 1 & 1), "%s: flag fields", what);
    FUZZ_CHECK(in->eltype <= NPYG_RA_BOOL && in->elbyte >= 1, "%s: eltype %llu elbyte %llu", what,
               (unsigned long long)in->eltype, (unsigned long long)in->elbyte);
    FUZZ_CHECK(in->ndims <= l->max_dims, "%s: %u dims over the limit", what, in->ndims);
    FUZZ_CHECK(in->data_offset == 48 + 8 * (uint64_t)in->ndims, "%s: data_offset", what);
    uint64_t count = 1, h = FUZZ_HASH_INIT;
    bool zero = false;
    for (uint32_t k = 0; k < in->ndims; k++) {
        if (in->dims[k] == 0) zero = true;
        if (!zero) count *= in->dims[k]; /* checked below against count, not trusted */
        h = fuzz_hash(h, &in->dims[k], 8);
        uint64_t le = 0;
        for (int b = 7; b >= 0; b--) le = le << 8 | file[48 + 8 * k + (unsigned)b];
        FUZZ_CHECK(le == in->dims[k], "%s: dim %u is not the file's", what, k);
    }
    out->dims_hash = h;
    FUZZ_CHECK(in->count == (zero ? 0 : count), "%s: count %llu", what, (unsigned long long)in->count);
    FUZZ_CHECK(in->elbyte == 0 || in->data_bytes / in->elbyte == in->count, "%s: data_bytes != elbyte * count", what);
    FUZZ_CHECK(in->data_bytes % in->elbyte == 0, "%s: data_bytes not a multiple of elbyte", what);
    FUZZ_CHECK(in->data_bytes <= l->max_payload_bytes, "%s: data over max_payload_bytes", what);
    if (!in->compressed) FUZZ_CHECK(in->size == in->data_bytes, "%s: uncompressed size != data bytes", what);
    FUZZ_CHECK(in->data_offset + in->size + in->metadata_bytes == len, "%s: header + data + metadata != %zu bytes",
               what, len);
    char name[64];
    size_t n = npyg_ra_type_name(in, name, sizeof name);
    FUZZ_CHECK(n > 0 && n < sizeof name && strlen(name) == n, "%s: type name", what);
    if (cfg->sink) {
        FUZZ_CHECK(ss->bytes == in->size, "%s: sink saw %llu of %llu data bytes", what, (unsigned long long)ss->bytes,
                   (unsigned long long)in->size);
        FUZZ_CHECK(ss->hash == fuzz_hash(FUZZ_HASH_INIT, file + in->data_offset, (size_t)in->size),
                   "%s: the sink saw other bytes than the data segment", what);
    }
}

/* Codes one input path can reach and another cannot for the same bytes:
   streams hold the compressed bytes (the buffer path does not) and
   allocate the dims before they know the input ends; an input that can
   seek is searched for an HDF5 superblock (NPYG_EPOLYGLOT), a stream not. */
static void agree(const ra_result *a, const ra_result *b, const char *what)
{
    if (a->rc == NPYG_ELIMIT_ALLOC || b->rc == NPYG_ELIMIT_ALLOC) return;
    if (a->rc == NPYG_EPOLYGLOT || b->rc == NPYG_EPOLYGLOT) return;
    FUZZ_CHECK(a->rc == b->rc, "%s: %s by buffer, %s here (%s)", what, npyg_error_name(a->rc), npyg_error_name(b->rc),
               b->err.message);
    if (a->rc) {
        FUZZ_CHECK(a->err.offset == b->err.offset, "%s: %s at %llu by buffer, %llu here", what, npyg_error_name(a->rc),
                   (unsigned long long)a->err.offset, (unsigned long long)b->err.offset);
        return;
    }
    FUZZ_CHECK(a->info.flags == b->info.flags && a->info.eltype == b->info.eltype && a->info.elbyte == b->info.elbyte &&
                   a->info.size == b->info.size && a->info.ndims == b->info.ndims && a->dims_hash == b->dims_hash &&
                   a->info.data_bytes == b->info.data_bytes && a->info.metadata_bytes == b->info.metadata_bytes &&
                   a->info.warnings == b->info.warnings,
               "%s: another description than the buffer's", what);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *file;
    size_t len;
    fuzz_config cfg;
    fuzz_begin(data, size, &file, &len, &cfg);
    /* Decompression is bounded by max_alloc_bytes; keep one input cheap. */
    if (cfg.limits.max_alloc_bytes > (4u << 20)) cfg.limits.max_alloc_bytes = 4u << 20;

    uint64_t bound = npyg_ra_worst_case_alloc(&cfg.limits);
    FUZZ_CHECK(bound > 0 && bound <= cfg.limits.max_alloc_bytes, "npyg_ra_worst_case_alloc %llu",
               (unsigned long long)bound);
    fuzz_alloc fa;
    npyg_ctx *ctx = fuzz_start(&cfg, &fa, bound);
    if (!ctx) return 0;
    fuzz_sink ss;
    npyg_set_payload_sink(ctx, cfg.sink ? fuzz_sink_cb : NULL, &ss);

    /* 1. the buffer */
    fuzz_sink_reset(&ss, &cfg);
    bool before = fa.failed;
    npyg_set_input_buffer(ctx, file, len);
    int rc = npyg_ra_validate(ctx);
    bool inject = fuzz_refused(&fa, before, rc, "validate_buffer");
    ra_result rb;
    check(ctx, rc, file, len, &cfg, &ss, &rb, "ra_validate_buffer");
    bool refused_b = ss.refused;

    /* 2. the read callback */
    fuzz_reader rd;
    fuzz_reader_init(&rd, file, len, &cfg, chunk);
    fuzz_sink_reset(&ss, &cfg);
    before = fa.failed;
    npyg_set_input_read(ctx, fuzz_read_cb, &rd);
    rc = npyg_ra_validate(ctx);
    bool inject_s = fuzz_refused(&fa, before, rc, "validate_read");
    if (rd.failed) FUZZ_CHECK(rc == NPYG_EIO, "the read callback failed, but validate_read says %s", npyg_error_name(rc));
    ra_result rs;
    check(ctx, rc, file, len, &cfg, &ss, &rs, "ra_validate_read");
    if (rs.rc == 0) FUZZ_CHECK(rd.pos == len, "validate_read succeeded without reading to the end");
    if (!inject && !inject_s && !rd.failed && ss.refused == refused_b) agree(&rb, &rs, "ra_validate_read");

#if defined(__linux__)
    /* 3. a descriptor on an in-memory file, from a non-zero position */
    size_t skip; /* the descriptor starts mid-file */
    int fd = fuzz_memfd(&cfg, file, len, &skip);
    if (fd >= 0) {
        fuzz_sink_reset(&ss, &cfg);
        before = fa.failed;
        npyg_set_input_fd(ctx, fd);
        rc = npyg_ra_validate(ctx);
        bool inject_f = fuzz_refused(&fa, before, rc, "validate_fd");
        ra_result rf;
        check(ctx, rc, file, len, &cfg, &ss, &rf, "ra_validate_fd");
        FUZZ_CHECK(lseek(fd, 0, SEEK_CUR) == (off_t)skip, "validate_fd moved the descriptor");
        if (!inject && !inject_f && ss.refused == refused_b) agree(&rb, &rf, "ra_validate_fd");
        close(fd);
    }
#endif

    /* The .npy entry point on the same bytes: refused at the magic. */
    npyg_set_input_buffer(ctx, file, len);
    rc = npyg_validate(ctx);
    if (npyg_is_ra(file, len)) FUZZ_CHECK(rc == NPYG_EMAGIC || rc == NPYG_ENOMEM, ".npy reader on a .ra file: %s",
                                          npyg_error_name(rc));
    FUZZ_CHECK(npyg_get_ra_info(ctx) == NULL, ".ra info after a .npy call");

    npyg_ctx_free(ctx);
    fuzz_alloc_check_empty(&fa);
    return 0;
}
