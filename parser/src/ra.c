/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RawArray (.ra): the fixed header, the dims, the data segment (streamed
 * to the sink as stored, or decompressed as one LZ4 block and its length
 * checked) and the metadata after it. Every rule and its source are in
 * parser/RA.md. The header is trusted by the reference readers; here each
 * field is checked before anything is allocated or read on its word.
 */
#include "internal.h"

#include <lz4.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#define RA_FIXED 48u        /* magic, flags, eltype, elbyte, size, ndims */
#define RA_KNOWN_FLAGS (NPYG_RA_FLAG_BIG_ENDIAN | NPYG_RA_FLAG_COMPRESSED)

/* Input: every kind of input.c's. */
typedef npyg__input ra_src;

static uint64_t le64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int k = 7; k >= 0; k--) v = v << 8 | p[k];
    return v;
}

static int io_error(npyg_ctx *ctx, uint64_t at) { return npyg__fail(ctx, NPYG_EIO, at, "read error"); }

/* ---------------- the element table (RA.md, "Element types") ---------------- */
static bool elbyte_ok(uint64_t eltype, uint64_t b)
{
    switch (eltype) {
    case NPYG_RA_USER: return b >= 1;
    case NPYG_RA_INT:
    case NPYG_RA_UINT: return b == 1 || b == 2 || b == 4 || b == 8 || b == 16;
    case NPYG_RA_FLOAT: return b == 2 || b == 4 || b == 8 || b == 16;
    case NPYG_RA_COMPLEX: return b == 4 || b == 8 || b == 16 || b == 32;
    case NPYG_RA_BOOL: return b == 1;
    default: return false;
    }
}

static const char *const eltype_names[] = {"user", "int", "uint", "float", "complex", "bool"};

/* ---------------- header and dims ---------------- */
static int parse_header(npyg_ctx *ctx, ra_src *s, npyg_ra_info *ra)
{
    uint8_t h[RA_FIXED];
    long long got = npyg__in_read(s, h, RA_FIXED);
    if (got < 0) return io_error(ctx, 0);
    size_t m = (size_t)got < 8 ? (size_t)got : 8;
    if (memcmp(h, NPYG__RA_MAGIC, m) != 0)
        return npyg__fail(ctx, NPYG_ERA_MAGIC, 0, "not a RawArray file (does not start with \"rawarray\")");
    if ((size_t)got < RA_FIXED)
        return npyg__fail(ctx, NPYG_ERA_TRUNC_HEADER, (uint64_t)got,
                          "file ends after %lld bytes, inside the 48-byte header", got);
    ra->flags = le64(h + 8);
    ra->eltype = le64(h + 16);
    ra->elbyte = le64(h + 24);
    ra->size = le64(h + 32);
    uint64_t ndims = le64(h + 40);
    if (ra->flags & ~RA_KNOWN_FLAGS)
        return npyg__fail(ctx, NPYG_ERA_FLAGS, 8, "unknown flag bits 0x%llx (only bit 0, big-endian, and bit 1, LZ4, are defined)",
                          (unsigned long long)(ra->flags & ~RA_KNOWN_FLAGS));
    ra->big_endian = (ra->flags & NPYG_RA_FLAG_BIG_ENDIAN) != 0;
    ra->compressed = (ra->flags & NPYG_RA_FLAG_COMPRESSED) != 0;
    if (ra->eltype > NPYG_RA_BOOL)
        return npyg__fail(ctx, NPYG_ERA_ELTYPE, 16, "eltype %llu is not one of 0-5", (unsigned long long)ra->eltype);
    if (!elbyte_ok(ra->eltype, ra->elbyte))
        return npyg__fail(ctx, NPYG_ERA_ELBYTE, 24, "elbyte %llu is not a width of %s elements",
                          (unsigned long long)ra->elbyte, eltype_names[ra->eltype]);
    if ((ra->eltype == NPYG_RA_FLOAT && ra->elbyte == 16) || (ra->eltype == NPYG_RA_COMPLEX && ra->elbyte == 32))
        ra->warnings |= NPYG_W_LONGDOUBLE;
    if (ndims > ctx->limits.max_dims)
        return npyg__fail(ctx, NPYG_ELIMIT_DIMS, 40, "%llu dims, over max_dims (%u)", (unsigned long long)ndims,
                          (unsigned)ctx->limits.max_dims);
    ra->ndims = (uint32_t)ndims;
    ra->data_offset = RA_FIXED + 8 * ndims;
    if (s->size_known && s->size < ra->data_offset)
        return npyg__fail(ctx, NPYG_ERA_TRUNC_DIMS, s->size, "file ends inside the %llu dims",
                          (unsigned long long)ndims);
    uint64_t *dims = NULL;
    if (ndims) {
        dims = npyg__arena_alloc(&ctx->arena, 8 * (size_t)ndims);
        if (!dims) return npyg__nomem(ctx, 48);
    }
    /* ra.py shapes the data with numpy, which refuses an array whose
       elbyte times its non-zero dims reaches 2**63, even one that a zero
       dim leaves empty (RA.md, "Sizes"). */
    uint64_t bytes = ra->elbyte;
    bool zero = false, big = bytes > INT64_MAX;
    uint8_t d[8];
    for (uint32_t k = 0; k < ra->ndims; k++) {
        got = npyg__in_read(s, d, 8);
        if (got < 0) return io_error(ctx, s->pos);
        if (got < 8)
            return npyg__fail(ctx, NPYG_ERA_TRUNC_DIMS, s->pos, "file ends inside dim %u of %u", k, ra->ndims);
        dims[k] = le64(d);
        if (dims[k] == 0) zero = true;
        else if (!big) big = !npyg__mul_u64(bytes, dims[k], &bytes) || bytes > INT64_MAX;
    }
    ra->dims = dims;
    if (big)
        return npyg__fail(ctx, NPYG_ERA_OVERFLOW, 24,
                          "elbyte times the non-zero dims is 2**63 bytes or more, an array no reader can shape");
    ra->count = zero ? 0 : bytes / ra->elbyte; /* elbyte >= 1 */
    ra->data_bytes = zero ? 0 : bytes;
    if (!ra->compressed && ra->size != ra->data_bytes)
        return npyg__fail(ctx, NPYG_ERA_SIZE, 32, "size %llu, but elbyte x dims is %llu bytes",
                          (unsigned long long)ra->size, (unsigned long long)ra->data_bytes);
    if (ra->data_bytes > ctx->limits.max_payload_bytes)
        return npyg__fail(ctx, NPYG_ELIMIT_PAYLOAD, 32, "%llu data bytes, over max_payload_bytes (%llu)",
                          (unsigned long long)ra->data_bytes, (unsigned long long)ctx->limits.max_payload_bytes);
    return 0;
}

/* ---------------- data ---------------- */
static int truncated(npyg_ctx *ctx, const npyg_ra_info *ra, uint64_t have)
{
    return npyg__fail(ctx, NPYG_ERA_TRUNC_DATA, ra->data_offset + have, "%llu data bytes declared, %llu present",
                      (unsigned long long)ra->size, (unsigned long long)have);
}

/* Counts what follows the data: metadata, allowed by the format. */
static int metadata(npyg_ctx *ctx, ra_src *s, npyg_ra_info *ra)
{
    return npyg__count_rest(ctx, s, false, &ra->metadata_bytes);
}

static int raw_data(npyg_ctx *ctx, ra_src *s, npyg_ra_info *ra)
{
    uint64_t need = ra->size, left, done;
    bool sized = npyg__in_left(s, &left);
    if (sized && left < need) return truncated(ctx, ra, left);
    if (sized && !ctx->sink) { /* the size says it all: nothing to read */
        s->pos += need;
        return metadata(ctx, s, ra);
    }
    int rc = npyg__to_sink(ctx, s, need, &done);
    if (rc) return rc;
    return done < need ? truncated(ctx, ra, done) : metadata(ctx, s, ra);
}

/* The lengths an LZ4 block must have before anything is read for it. */
static int lz4_lengths(npyg_ctx *ctx, const ra_src *s, const npyg_ra_info *ra)
{
    uint64_t csize = ra->size, out_len = ra->data_bytes;
    if (csize == 0 || csize > LZ4_MAX_INPUT_SIZE || out_len > LZ4_MAX_INPUT_SIZE ||
        csize > (uint64_t)LZ4_COMPRESSBOUND(out_len))
        return npyg__fail(ctx, NPYG_ERA_LZ4, 32,
                          "compressed size %llu cannot be one LZ4 block of %llu bytes (at most LZ4_compressBound, under 2 GiB)",
                          (unsigned long long)csize, (unsigned long long)out_len);
    /* Held to an archive member's rule (zip.c), so that a small file
       cannot make a reader allocate a thousand times its size: past
       ratio_grace_bytes, at most max_ratio times the stored bytes. */
    uint64_t ratio = 0, grace = 0;
    npyg_limit_value(ctx, NPYG_LIMIT_MAX_RATIO, &ratio);
    npyg_limit_value(ctx, NPYG_LIMIT_RATIO_GRACE_BYTES, &grace);
    uint64_t cap;
    if (!npyg__mul_u64(csize, ratio, &cap)) cap = UINT64_MAX;
    if (out_len > grace && out_len > cap)
        return npyg__fail(ctx, NPYG_ELIMIT_RATIO, ra->data_offset,
                          "the LZ4 data of %llu bytes decodes to %llu: over max_ratio (%llu) past ratio_grace_bytes (%llu)",
                          (unsigned long long)csize, (unsigned long long)out_len, (unsigned long long)ratio,
                          (unsigned long long)grace);
    uint64_t left;
    if (npyg__in_left(s, &left) && left < csize) return truncated(ctx, ra, left);
    return 0;
}

/* Room for hold bytes at once, asked before anything is allocated. */
static int lz4_room(npyg_ctx *ctx, uint64_t hold, const char *what)
{
    if (npyg__charge(ctx, hold)) return 0;
    return npyg__fail(ctx, NPYG_ELIMIT_ALLOC, 32, "%s needs %llu bytes at once, over max_alloc_bytes (%llu)", what,
                      (unsigned long long)hold, (unsigned long long)ctx->limits.max_alloc_bytes);
}

/* The block at s->pos, whole: in place for a buffer, else in a charged
   copy (*copy, to be freed with its size). The sink sees it as stored. */
static int lz4_block(npyg_ctx *ctx, ra_src *s, const npyg_ra_info *ra, const uint8_t **in, uint8_t **copy)
{
    uint64_t csize = ra->size, at = s->pos;
    *copy = NULL;
    if ((*in = npyg__in_peek(s, s->pos, (size_t)csize))) {
        s->pos += csize;
    } else {
        *in = *copy = npyg__xalloc(ctx, (size_t)csize);
        if (!*copy) return npyg__nomem(ctx, at);
        long long got = npyg__in_read(s, *copy, (size_t)csize);
        if (got < 0) return io_error(ctx, s->pos);
        if ((uint64_t)got < csize) return truncated(ctx, ra, (uint64_t)got);
    }
    return npyg__sink_all(ctx, *in, csize, at);
}

/* Decodes the block into out, exactly ra->data_bytes long: one call to
   liblz4, which never writes past that length. */
static int lz4_decode(npyg_ctx *ctx, const npyg_ra_info *ra, const uint8_t *in, uint8_t *out)
{
    uint64_t csize = ra->size, out_len = ra->data_bytes, at = ra->data_offset;
    int r = LZ4_decompress_safe((const char *)in, (char *)out, (int)csize, (int)out_len);
    /* liblz4 returns -(1 + the input position where decoding stopped);
       an undocumented detail, so the offset is kept inside the block. */
    uint64_t stop = r < 0 ? (uint64_t)-(r + 1) : 0;
    if (stop > csize) stop = csize;
    if (r < 0)
        return npyg__fail(ctx, NPYG_ERA_LZ4, at + stop, "corrupt LZ4 block, or one that decodes past %llu bytes",
                          (unsigned long long)out_len);
    if ((uint64_t)r != out_len)
        return npyg__fail(ctx, NPYG_ERA_LZ4_SIZE, at, "LZ4 block decodes to %d bytes, elbyte x dims is %llu", r,
                          (unsigned long long)out_len);
    return 0;
}


/* An LZ4 block decodes only as a whole: validating it holds the
   compressed bytes and the output at once, both charged. */
static int lz4_data(npyg_ctx *ctx, ra_src *s, npyg_ra_info *ra)
{
    uint64_t out_len = ra->data_bytes;
    int rc = lz4_lengths(ctx, s, ra);
    if (!rc) rc = lz4_room(ctx, (s->buf ? 0 : ra->size) + out_len, "decompressing");
    if (rc) return rc;
    const uint8_t *in;
    uint8_t *copy, none, *out = NULL;
    rc = lz4_block(ctx, s, ra, &in, &copy);
    if (!rc) {
        out = out_len ? npyg__xalloc(ctx, (size_t)out_len) : &none;
        rc = out ? lz4_decode(ctx, ra, in, out) : npyg__nomem(ctx, ra->data_offset);
    }
    if (out && out != &none) npyg__xfree(ctx, out, (size_t)out_len);
    if (copy) npyg__xfree(ctx, copy, (size_t)ra->size);
    return rc ? rc : metadata(ctx, s, ra);
}

/* ---------------- the two-step load (load.c) ---------------- */
int npyg__ra_open(npyg_ctx *ctx, ra_src *s)
{
    ctx->parse_space = NPYG_OFFSET_FILE;
    npyg_ra_info ra;
    memset(&ra, 0, sizeof ra);
    int rc = parse_header(ctx, s, &ra);
    if (rc) return rc;
    if (ra.compressed) {
        rc = lz4_lengths(ctx, s, &ra);
        /* The block decodes into the caller's buffer, but is read whole
           first unless it is in memory already. */
        if (!rc && !s->buf) rc = lz4_room(ctx, ra.size, "reading the LZ4 block");
    } else if (s->size_known && s->size - s->pos < ra.size) {
        rc = truncated(ctx, &ra, s->size - s->pos);
    }
    if (rc) return rc;
    ctx->ra_info = ra;
    ctx->have_ra_info = true;
    return 0;
}

int npyg__ra_read(npyg_ctx *ctx, ra_src *s, uint8_t *dst)
{
    npyg_ra_info *ra = &ctx->ra_info;
    if (!dst) return ra->compressed ? lz4_data(ctx, s, ra) : raw_data(ctx, s, ra);
    int rc;
    if (ra->compressed) {
        const uint8_t *in;
        uint8_t *copy;
        rc = lz4_block(ctx, s, ra, &in, &copy);
        if (!rc) rc = lz4_decode(ctx, ra, in, dst);
        if (copy) npyg__xfree(ctx, copy, (size_t)ra->size);
    } else {
        long long got = npyg__in_read(s, dst, (size_t)ra->size);
        if (got < 0) return io_error(ctx, s->pos);
        if ((uint64_t)got < ra->size) return truncated(ctx, ra, (uint64_t)got);
        rc = npyg__sink_all(ctx, dst, ra->size, ra->data_offset);
    }
    return rc ? rc : metadata(ctx, s, ra);
}

/* ---------------- entry points ---------------- */
static void begin(npyg_ctx *ctx)
{
    npyg__ctx_reset(ctx);
    memset(&ctx->ra_info, 0, sizeof ctx->ra_info);
    ctx->parse_space = NPYG_OFFSET_FILE;
}

static int run(npyg_ctx *ctx, ra_src *s)
{
    npyg_ra_info ra;
    memset(&ra, 0, sizeof ra);
    int rc = parse_header(ctx, s, &ra);
    if (!rc) rc = ra.compressed ? lz4_data(ctx, s, &ra) : raw_data(ctx, s, &ra);
    if (!rc) {
        ctx->ra_info = ra;
        ctx->have_ra_info = true;
    }
    return rc;
}

int npyg_ra_validate(npyg_ctx *ctx)
{
    if (!ctx) return NPYG_EINVAL;
    begin(ctx);
    ra_src s;
    int rc = npyg__input_begin(ctx, &s, NPYG__IN_KEEP_HEAD, NPYG_OFFSET_FILE, NULL);
    if (!rc) rc = npyg__refuse_polyglot(ctx, &s, NPYG_FORMAT_RA);
    return rc ? rc : run(ctx, &s);
}

NPYG__INPUT_FORMS(npyg_ra_validate)

const npyg_ra_info *npyg_get_ra_info(const npyg_ctx *ctx)
{
    return ctx && ctx->have_ra_info ? &ctx->ra_info : NULL;
}

const npyg_ra_info *npyg_ra_get_info(const npyg_ctx *ctx) { return npyg_get_ra_info(ctx); }

size_t npyg_ra_type_name(const npyg_ra_info *info, char *out, size_t size)
{
    char tmp[48];
    int n;
    if (!info || info->eltype > NPYG_RA_BOOL) n = snprintf(tmp, sizeof tmp, "?");
    else if (info->eltype == NPYG_RA_BOOL) n = snprintf(tmp, sizeof tmp, "bool");
    else if (info->elbyte > UINT64_MAX / 8) n = snprintf(tmp, sizeof tmp, "%s?", eltype_names[info->eltype]);
    else n = snprintf(tmp, sizeof tmp, "%s%llu", eltype_names[info->eltype], (unsigned long long)(info->elbyte * 8));
    if (out && size) snprintf(out, size, "%s", tmp);
    return n < 0 ? 0 : (size_t)n;
}

/* Arena block header and alignment slack, above ctx.c's BLOCK_HDR. */
#define RA_BLOCK_SLACK 64u

uint64_t npyg_ra_worst_case_alloc(const npyg_limits *l)
{
    if (!npyg_worst_case_alloc(l)) return 0; /* invalid limits */
    uint64_t cap = l->max_alloc_bytes;
    /* Held at once: the context and its read buffer; the arena blocks
       earlier parses kept for reuse (NPYG__ARENA_SPARES at most); the dims (a block of their own when
       large); and for an LZ4 file the compressed bytes, at most
       LZ4_compressBound(out) (a longer block is refused before it is
       read), with the output, at most max_payload_bytes. */
    uint64_t out = l->max_payload_bytes < LZ4_MAX_INPUT_SIZE ? l->max_payload_bytes : LZ4_MAX_INPUT_SIZE;
    uint64_t in = out + out / 255 + 16;
    uint64_t fixed = sizeof(npyg_ctx) + NPYG__CHUNK + (2 + (uint64_t)NPYG__ARENA_SPARES) * (NPYG__ARENA_BLOCK + RA_BLOCK_SLACK) +
                     RA_BLOCK_SLACK;
    uint64_t sum = fixed + (uint64_t)l->max_dims * 8;
    if (!npyg__add_u64(sum, in, &sum) || !npyg__add_u64(sum, out, &sum)) return cap;
    return sum < cap ? sum : cap;
}
