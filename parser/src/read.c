/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Framing and inputs: magic, version, the length field, the header bytes,
 * then the payload accounted for (and streamed to the sink) in bounded
 * chunks. Every input (input.c) takes one path: bytes memory holds
 * already are parsed in place, the rest is read.
 */
#include "internal.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef npyg__input input;

static int io_error(npyg_ctx *ctx, uint64_t at)
{
    return npyg__fail(ctx, NPYG_EIO, at, "read error");
}

/* Magic, version and length field: at most 12 bytes. */
static int read_preamble(npyg_ctx *ctx, input *s, uint32_t *hlen, unsigned *lensize)
{
    uint8_t pre[12];
    long long got = npyg__in_read(s, pre, 8);
    if (got < 0) return io_error(ctx, 0);
    size_t m = (size_t)got < NPYG__MAGIC_LEN ? (size_t)got : NPYG__MAGIC_LEN;
    if (memcmp(pre, NPYG__MAGIC, m) != 0)
        return npyg__fail(ctx, NPYG_EMAGIC, 0, "not an NPY file (does not start with \\x93NUMPY)");
    if (got < 8)
        return npyg__fail(ctx, NPYG_ETRUNC_PREAMBLE, (uint64_t)got,
                          "file ends after %lld bytes, inside the magic string and version", got);
    int major = pre[6], minor = pre[7];
    if (!((major == 1 || major == 2 || major == 3) && minor == 0))
        return npyg__fail(ctx, NPYG_EVERSION, 6,
                          "format version %d.%d is not one of 1.0, 2.0, 3.0", major, minor);
    ctx->info.version_major = major;
    ctx->info.version_minor = minor;
    *lensize = major == 1 ? 2 : 4;
    got = npyg__in_read(s, pre + 8, *lensize);
    if (got < 0) return io_error(ctx, 8);
    if ((unsigned)got < *lensize)
        return npyg__fail(ctx, NPYG_ETRUNC_PREAMBLE, 8 + (uint64_t)got,
                          "file ends inside the %u-byte header length", *lensize);
    *hlen = major == 1 ? (uint32_t)pre[8] | (uint32_t)pre[9] << 8
                       : (uint32_t)pre[8] | (uint32_t)pre[9] << 8 | (uint32_t)pre[10] << 16 | (uint32_t)pre[11] << 24;
    if (*hlen > ctx->limits.max_header_bytes)
        return npyg__fail(ctx, NPYG_ELIMIT_HEADER, 8,
                          "length %u is over max_header_bytes (%llu)", *hlen,
                          (unsigned long long)ctx->limits.max_header_bytes);
    return 0;
}

/* Header text checks shared by every input, then layout rules. */
static int finish_header(npyg_ctx *ctx, const char *text, uint32_t hlen, unsigned lensize)
{
    npyg_info *info = &ctx->info;
    info->header_len = hlen;
    info->data_offset = 8 + lensize + (uint64_t)hlen;
    ctx->base = 8 + lensize;
    if (hlen == 0) return npyg__fail(ctx, NPYG_ESYNTAX, ctx->base, "header is empty");
    npyg__span descr_text;
    int rc = npyg__parse_header_text(ctx, text, hlen, &descr_text);
    if (rc) return rc;
    bool strict = ctx->profile == NPYG_PROFILE_STRICT;
    if (info->data_offset % 64 != 0) {
        if (strict)
            return npyg__fail(ctx, NPYG_EALIGN, info->data_offset,
                              "data offset %llu is not a multiple of 64",
                              (unsigned long long)info->data_offset);
        info->warnings |= info->data_offset % 16 == 0 ? NPYG_W_LEGACY_ALIGN : NPYG_W_ALIGN;
    }
    bool canonical = descr_text.len ? npyg__descr_is_canonical(info, text + descr_text.at, descr_text.len)
                                    : npyg__header_is_canonical(info, text, hlen);
    if (!canonical) {
        if (strict)
            return npyg__fail(ctx, NPYG_ENONCANON, ctx->base,
                              "header text is not what numpy's writer produces");
        info->warnings |= NPYG_W_NONCANON;
    }
    return 0;
}

int npyg__parse_header_in(npyg_ctx *ctx, input *s)
{
    uint32_t hlen = 0;
    unsigned lensize = 0;
    int rc = read_preamble(ctx, s, &hlen, &lensize);
    if (rc) return rc;
    uint64_t left;
    if (npyg__in_left(s, &left) && hlen > left)
        return npyg__fail(ctx, NPYG_ETRUNC_HEADER, s->size,
                          "file ends inside the header (%u bytes declared, %llu present)", hlen,
                          (unsigned long long)left);
    /* In memory already (a buffer, a file's first bytes): parsed there. */
    const char *text = hlen ? (const char *)npyg__in_peek(s, s->pos, hlen) : "";
    if (text) {
        s->pos += hlen;
        return finish_header(ctx, text, hlen, lensize);
    }
    char *copy = npyg__arena_alloc(&ctx->arena, hlen);
    if (!copy) return npyg__nomem(ctx, s->pos);
    long long got = npyg__in_read(s, copy, hlen);
    if (got < 0) return io_error(ctx, s->pos);
    if ((uint64_t)got < hlen)
        return npyg__fail(ctx, NPYG_ETRUNC_HEADER, s->pos,
                          "file ends inside the header (%u bytes declared, %lld present)", hlen, got);
    return finish_header(ctx, copy, hlen, lensize);
}

int npyg__trailing(npyg_ctx *ctx, uint64_t extra)
{
    ctx->info.trailing_bytes = extra;
    if (!extra) return 0;
    if (ctx->profile == NPYG_PROFILE_STRICT)
        return npyg__fail(ctx, NPYG_ETRAILING, ctx->info.data_offset + ctx->info.payload_bytes,
                          "%llu or more bytes after the payload", (unsigned long long)extra);
    ctx->info.warnings |= NPYG_W_TRAILING;
    return 0;
}

int npyg__truncated(npyg_ctx *ctx, uint64_t have)
{
    return npyg__fail(ctx, NPYG_ETRUNC_PAYLOAD, ctx->info.data_offset + have,
                      "%llu bytes expected, %llu present",
                      (unsigned long long)ctx->info.payload_bytes, (unsigned long long)have);
}

int npyg__sink(npyg_ctx *ctx, const void *p, size_t n, uint64_t at)
{
    if (ctx->sink && n && ctx->sink(ctx->sink_user, p, n) != 0)
        return npyg__fail(ctx, NPYG_EIO, at, "the payload callback stopped validation");
    return 0;
}

int npyg__sink_all(npyg_ctx *ctx, const uint8_t *p, uint64_t n, uint64_t at)
{
    for (uint64_t done = 0; ctx->sink && done < n;) {
        size_t k = n - done < NPYG__CHUNK ? (size_t)(n - done) : NPYG__CHUNK;
        int rc = npyg__sink(ctx, p + done, k, at + done);
        if (rc) return rc;
        done += k;
    }
    return 0;
}

int npyg__need_readbuf(npyg_ctx *ctx, uint64_t at)
{
    if (!ctx->readbuf) {
        ctx->readbuf = npyg__xalloc(ctx, NPYG__CHUNK);
        if (!ctx->readbuf) return npyg__nomem(ctx, at);
    }
    return 0;
}

int npyg__to_sink(npyg_ctx *ctx, input *s, uint64_t n, uint64_t *done)
{
    for (*done = 0; *done < n;) {
        size_t k = n - *done < NPYG__CHUNK ? (size_t)(n - *done) : NPYG__CHUNK;
        const uint8_t *p = npyg__in_peek(s, s->pos, k);
        long long got = (long long)k;
        if (p) s->pos += k;
        else {
            int rc = npyg__need_readbuf(ctx, s->pos);
            if (rc) return rc;
            got = npyg__in_read(s, ctx->readbuf, k);
            if (got < 0) return io_error(ctx, s->pos);
            p = ctx->readbuf;
        }
        int rc = npyg__sink(ctx, p, (size_t)got, s->pos - (uint64_t)got);
        if (rc) return rc;
        *done += (uint64_t)got;
        if ((size_t)got < k) break;
    }
    return 0;
}

int npyg__count_rest(npyg_ctx *ctx, input *s, bool first_only, uint64_t *extra)
{
    if (npyg__in_left(s, extra)) return 0;
    int rc = npyg__need_readbuf(ctx, s->pos);
    if (rc) return rc;
    for (*extra = 0;;) {
        long long got = npyg__in_read(s, ctx->readbuf, NPYG__CHUNK);
        if (got < 0) return io_error(ctx, s->pos);
        if (got == 0) break;
        *extra += (uint64_t)got;
        if (first_only) break;
    }
    return 0;
}

int npyg__rest(npyg_ctx *ctx, input *s)
{
    uint64_t extra;
    /* under the strict profile, one byte is enough to refuse */
    int rc = npyg__count_rest(ctx, s, ctx->profile == NPYG_PROFILE_STRICT, &extra);
    return rc ? rc : npyg__trailing(ctx, extra);
}

int npyg__payload(npyg_ctx *ctx, input *s)
{
    uint64_t need = ctx->info.payload_bytes, left, done;
    bool sized = npyg__in_left(s, &left);
    if (sized && left < need) return npyg__truncated(ctx, left);
    if (sized && !ctx->sink) { /* the size says it all: nothing to read */
        s->pos += need;
        return npyg__trailing(ctx, left - need);
    }
    int rc = npyg__to_sink(ctx, s, need, &done);
    if (rc) return rc;
    return done < need ? npyg__truncated(ctx, done) : npyg__rest(ctx, s);
}

static int done(npyg_ctx *ctx, int rc)
{
    ctx->have_info = rc == 0;
    return rc;
}

int npyg_parse_header(npyg_ctx *ctx, const void *buf, size_t len)
{
    if (!ctx) return NPYG_EINVAL;
    npyg__ctx_reset(ctx);
    if (!buf && len) return npyg__fail(ctx, NPYG_EINVAL, 0, "NULL buffer");
    input s = {.kind = NPYG__IN_BUFFER, .buf = buf ? buf : (const void *)"", .fd = -1, .size_known = true, .size = len};
    return done(ctx, npyg__parse_header_in(ctx, &s));
}

static int run(npyg_ctx *ctx, input *s)
{
    int rc = npyg__parse_header_in(ctx, s);
    if (!rc) rc = npyg__payload(ctx, s);
    return done(ctx, rc);
}

int npyg__validate_input(npyg_ctx *ctx, input *s)
{
    npyg__ctx_reset(ctx);
    return run(ctx, s);
}

int npyg_validate(npyg_ctx *ctx)
{
    if (!ctx) return NPYG_EINVAL;
    npyg__ctx_reset(ctx);
    input s;
    /* The header's verdict first, as npyg_parse_header gives it; then the
       HDF5 superblock search, before a byte of payload is read. */
    int rc = npyg__input_begin(ctx, &s, NPYG__IN_KEEP_HEAD, NPYG_OFFSET_FILE, NULL);
    if (!rc) rc = npyg__parse_header_in(ctx, &s);
    if (!rc) rc = npyg__refuse_polyglot(ctx, &s, NPYG_FORMAT_NPY);
    if (!rc) rc = npyg__payload(ctx, &s);
    return done(ctx, rc);
}

NPYG__INPUT_FORMS(npyg_validate)
