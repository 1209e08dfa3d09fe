/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Whole-file validation. The same bytes go through npyg_validate on a
 * buffer input, npyg_parse_header, npyg_validate on a read callback
 * (chunks of pseudo-random size, optionally failing once) and, when the
 * trailer asks, on a descriptor of an in-memory file; the payload sink hashes what it is
 * given. The paths must agree: same result code, same description, and the
 * sink must see exactly the payload bytes of the file, in order.
 */
#if !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 200809L /* lseek, close */
#endif
#include "fuzz_common.h"

#include <string.h>
#if defined(__linux__)
#include <unistd.h>
#endif

/* Chunk sizes: byte by byte, small, medium, or all it asked for. */
static size_t chunk(uint32_t x, size_t asked)
{
    switch (x & 3u) {
    case 0: return 1;
    case 1: return 1 + (x >> 8) % 16u;
    case 2: return 1 + (x >> 8) % 4096u;
    default: return asked;
    }
}

/* The sink must have seen exactly the payload, or have stopped the call. */
static void check_sink(const fuzz_sink *s, const fuzz_result *r, const uint8_t *file, size_t len,
                       const char *what)
{
    if (s->refused) {
        FUZZ_CHECK(r->rc == NPYG_EIO, "%s: the sink refused but the result is %s", what,
                   npyg_error_name(r->rc));
        return;
    }
    if (r->rc != 0) return;
    const npyg_info *in = &r->info;
    FUZZ_CHECK(s->bytes == in->payload_bytes, "%s: sink saw %llu bytes of a %llu-byte payload", what,
               (unsigned long long)s->bytes, (unsigned long long)in->payload_bytes);
    FUZZ_CHECK(in->data_offset + in->payload_bytes <= len, "%s: payload past the end", what);
    uint64_t want = fuzz_hash(FUZZ_HASH_INIT, file + in->data_offset, (size_t)in->payload_bytes);
    FUZZ_CHECK(s->hash == want, "%s: the sink saw other bytes than the payload", what);
}

/* Codes that only some input paths can produce for the same bytes. */
static bool path_dependent(int rc)
{
    /* The streaming paths copy the header and keep a read buffer; the
       buffer path needs neither, so only they can hit max_alloc_bytes. */
    return rc == NPYG_ELIMIT_ALLOC;
}

/* What a file whose header parsed (h) gets from the payload check alone:
   a stream is not searched for an HDF5 superblock, so where the buffer says
   NPYG_EPOLYGLOT a stream says what the sizes say. */
static void unsearched(const fuzz_result *h, const fuzz_result *b, size_t len, npyg_profile profile,
                       const char *what)
{
    FUZZ_CHECK(h->rc == 0 && h->have_info, "%s: NPYG_EPOLYGLOT by buffer, but the header says %s", what,
               npyg_error_name(h->rc));
    uint64_t end = h->info.data_offset + h->info.payload_bytes;
    int want = len < end ? NPYG_ETRUNC_PAYLOAD : len > end && profile == NPYG_PROFILE_STRICT ? NPYG_ETRAILING : 0;
    uint64_t at = len < end ? len : end;
    FUZZ_CHECK(b->rc == want, "%s: NPYG_EPOLYGLOT by buffer, the sizes say %s, the stream %s (%s)", what,
               npyg_error_name(want), npyg_error_name(b->rc), b->err.message);
    if (want)
        FUZZ_CHECK(b->err.offset == at, "%s: %s at %llu, the sizes say %llu", what, npyg_error_name(want),
                   (unsigned long long)b->err.offset, (unsigned long long)at);
}

static void agree(const fuzz_result *a, const fuzz_result *b, const fuzz_result *h, size_t len,
                  npyg_profile profile, const char *what)
{
    if (path_dependent(a->rc) || path_dependent(b->rc)) return;
    if (a->rc == NPYG_EPOLYGLOT && b->rc != NPYG_EPOLYGLOT) {
        unsearched(h, b, len, profile, what);
        return;
    }
    FUZZ_CHECK(a->rc == b->rc, "%s: %s by buffer, %s here (%s)", what, npyg_error_name(a->rc),
               npyg_error_name(b->rc), b->err.message);
    if (a->rc) {
        FUZZ_CHECK(a->err.offset == b->err.offset, "%s: %s at %llu by buffer, at %llu here", what,
                   npyg_error_name(a->rc), (unsigned long long)a->err.offset,
                   (unsigned long long)b->err.offset);
        return;
    }
    fuzz_same_info(a, b, true, what);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *file;
    size_t len;
    fuzz_config cfg;
    fuzz_begin(data, size, &file, &len, &cfg);

    fuzz_alloc fa;
    npyg_ctx *ctx = fuzz_start(&cfg, &fa, 0);
    if (!ctx) return 0;

    fuzz_sink ss;
    fuzz_sink_reset(&ss, &cfg);
    npyg_set_payload_sink(ctx, cfg.sink ? fuzz_sink_cb : NULL, &ss);

    /* 1. the buffer */
    fuzz_result rb;
    bool failed_before = fa.failed;
    npyg_set_input_buffer(ctx, file, len);
    int rc = npyg_validate(ctx);
    fuzz_check_result(ctx, rc, CALL_VALIDATE, len, &cfg, &cfg.limits, &rb);
    bool inject = fuzz_refused(&fa, failed_before, rc, "validate_buffer");
    if (cfg.sink) check_sink(&ss, &rb, file, len, "validate_buffer");
    bool sink_refused = ss.refused;

    /* 2. the header alone: same verdict on everything before the payload */
    fuzz_result rh;
    failed_before = fa.failed;
    rc = npyg_parse_header(ctx, file, len);
    fuzz_check_result(ctx, rc, CALL_HEADER, len, &cfg, &cfg.limits, &rh);
    if (fuzz_refused(&fa, failed_before, rc, "parse_header")) inject = true;
    if (!inject) {
        if (rh.rc == 0) {
            FUZZ_CHECK(rb.rc == 0 || rb.rc == NPYG_ETRUNC_PAYLOAD || rb.rc == NPYG_ETRAILING ||
                           (rb.rc == NPYG_EIO && sink_refused) || rb.rc == NPYG_EPOLYGLOT,
                       "header parses, but validate_buffer says %s", npyg_error_name(rb.rc));
            if (rb.rc == 0) fuzz_same_info(&rb, &rh, false, "parse_header");
        } else {
            FUZZ_CHECK(rb.rc == rh.rc && rb.err.offset == rh.err.offset,
                       "parse_header says %s at %llu, validate_buffer %s at %llu", npyg_error_name(rh.rc),
                       (unsigned long long)rh.err.offset, npyg_error_name(rb.rc),
                       (unsigned long long)rb.err.offset);
        }
    }

    /* 3. the read callback */
    fuzz_reader rd;
    fuzz_reader_init(&rd, file, len, &cfg, chunk);
    fuzz_sink_reset(&ss, &cfg);
    fuzz_result rs;
    failed_before = fa.failed;
    npyg_set_input_read(ctx, fuzz_read_cb, &rd);
    rc = npyg_validate(ctx);
    fuzz_check_result(ctx, rc, CALL_VALIDATE, len, &cfg, &cfg.limits, &rs);
    FUZZ_CHECK(rd.pos <= len, "read past the end");
    bool inject_s = fuzz_refused(&fa, failed_before, rc, "validate_read");
    if (rd.failed) FUZZ_CHECK(rc == NPYG_EIO, "the read callback failed, but validate_read says %s", npyg_error_name(rc));
    if (cfg.sink) check_sink(&ss, &rs, file, len, "validate_read");
    if (!inject && !inject_s && !rd.failed && ss.refused == sink_refused) agree(&rb, &rs, &rh, len, cfg.profile, "validate_read");
    if (rs.rc == 0 && cfg.profile == NPYG_PROFILE_NUMPY)
        FUZZ_CHECK(rd.pos == len, "validate_read succeeded without reading to the end");

#if defined(__linux__)
    /* 4. a descriptor on an in-memory file, read from a non-zero position */
    size_t skip; /* the descriptor starts mid-file */
    int fd = fuzz_memfd(&cfg, file, len, &skip);
    if (fd >= 0) {
        fuzz_sink_reset(&ss, &cfg);
        fuzz_result rf;
        failed_before = fa.failed;
        npyg_set_input_fd(ctx, fd);
        rc = npyg_validate(ctx);
        fuzz_check_result(ctx, rc, CALL_VALIDATE, len, &cfg, &cfg.limits, &rf);
        bool inject_f = fuzz_refused(&fa, failed_before, rc, "validate_fd");
        if (cfg.sink) check_sink(&ss, &rf, file, len, "validate_fd");
        if (!inject && !inject_f && ss.refused == sink_refused) agree(&rb, &rf, &rh, len, cfg.profile, "validate_fd");
        FUZZ_CHECK(lseek(fd, 0, SEEK_CUR) <= (off_t)(skip + len), "descriptor moved past the end");
        close(fd);
    }
#endif

    npyg_ctx_free(ctx);
    fuzz_alloc_check_empty(&fa);
    return 0;
}
