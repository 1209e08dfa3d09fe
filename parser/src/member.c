/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * .npz members: each inflated (or read, when stored) in bounded chunks
 * into the .npy parser, its CRC and sizes checked as it ends, within the
 * archive's inflation budget; and an object member's pickle scanned.
 */
#include "zip.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int member_nomem(npyg_zip *z, uint64_t off)
{
    char what[96];
    snprintf(what, sizeof what, "inflating '%s'", z->cur->name);
    return npyg__nomem_in(z->ctx, NPYG_OFFSET_ARCHIVE, off, what);
}

/* The inflater's state counts against max_alloc_bytes like everything else. */
static void *inf_alloc(void *ctx, size_t n) { return npyg__xalloc(ctx, n); }
static void inf_free(void *ctx, void *p, size_t n) { npyg__xfree(ctx, p, n); }

/* ---------------- streaming one member ---------------- */

static uint64_t in_pos(const npyg_zip *z) { return z->cur->data_offset + z->in_done; }

static int refill(npyg_zip *z)
{
    uint64_t left = z->cur->compressed_size - z->in_done;
    size_t n = left < NPYG__CHUNK ? (size_t)left : NPYG__CHUNK;
    int rc = npyg__zip_read(z, in_pos(z), z->inbuf, n);
    if (rc) return rc;
    z->in_done += n;
    z->next_in = z->inbuf;
    z->avail_in = n;
    return 0;
}

/* Inflates into [dst, dst+n); *got bytes came out. Stops at the end of
   the deflate stream. */
static int inflate_some(npyg_zip *z, uint8_t *dst, size_t n, size_t *got)
{
    size_t done = 0;
    while (done < n && !z->stream_end) {
        if (z->avail_in == 0 && z->in_done < z->cur->compressed_size) {
            int rc = refill(z);
            if (rc) return rc;
        }
        size_t used = 0, made = 0;
        const char *msg = "error";
        int r = npyg__inflate_step(z->inf, z->next_in, z->avail_in, &used, dst + done, n - done, &made, &msg);
        z->next_in += used;
        z->avail_in -= used;
        done += made;
        if (r == NPYG__INF_END) z->stream_end = true;
        else if (r == NPYG__INF_NOMEM) return member_nomem(z, in_pos(z));
        else if (r == NPYG__INF_BAD)
            return zfail(z->ctx, NPYG_EZIP_INFLATE, in_pos(z) - z->avail_in, "'%s': corrupt deflate stream: %s",
                         z->cur->name, msg);
        else if (used == 0 && made == 0) {
            /* No progress with room to write: every compressed byte is
               in, so the stream is cut short (zlib's Z_BUF_ERROR). */
            if (z->avail_in == 0 && z->in_done == z->cur->compressed_size)
                return zfail(z->ctx, NPYG_EZIP_INFLATE, in_pos(z),
                             "'%s': deflate stream is truncated (ends with the %llu compressed bytes)", z->cur->name,
                             (unsigned long long)z->cur->compressed_size);
            if (z->avail_in != 0) /* a backend that stalls is a fault, never a loop */
                return zfail(z->ctx, NPYG_EZIP_INFLATE, in_pos(z) - z->avail_in,
                             "'%s': inflate makes no progress", z->cur->name);
        }
    }
    *got = done;
    return 0;
}

/* All declared bytes are out: the stream must end here, having used every
   compressed byte, and the CRC must match. */
static int finish_member(npyg_zip *z)
{
    npyg_zip_entry *e = z->cur;
    if (e->method == 8) {
        uint8_t one;
        size_t got = 0;
        int rc = inflate_some(z, &one, 1, &got);
        if (rc) return rc;
        if (got)
            return zfail(z->ctx, NPYG_EZIP_SIZE, in_pos(z) - z->avail_in,
                              "'%s' inflates to more than the declared %llu bytes", e->name,
                              (unsigned long long)e->uncompressed_size);
        size_t after = z->avail_in + npyg__inflate_unused(z->inf);
        if (after != 0 || z->in_done != e->compressed_size)
            return zfail(z->ctx, NPYG_EZIP_SIZE, in_pos(z) - after,
                              "'%s': deflate stream ends %llu bytes before its declared compressed size", e->name,
                              (unsigned long long)(e->compressed_size - z->in_done + after));
    }
    if ((uint32_t)z->crc != e->crc32)
        return zfail(z->ctx, NPYG_EZIP_CRC, e->header_offset + 14, "'%s': CRC-32 is %08x, declared %08x", e->name,
                          (unsigned)z->crc, e->crc32);
    z->at_eof = true;
    return 0;
}

/* The member's bytes, decompressed, at most n at a time into *out; *out
   is 0 at the end (only once sizes and CRC check out).
   Output never passes the declared size, and the declared size was held
   to the ratio and total limits before the first byte was inflated, so a
   bomb stops at its declared size at the latest. */
static int member_read(npyg_zip *z, uint8_t *dst, size_t n, size_t *out)
{
    npyg_zip_entry *e = z->cur;
    *out = 0;
    if (z->at_eof || n == 0) return 0;
    uint64_t left = e->uncompressed_size - z->out_done;
    if (left == 0) return finish_member(z);
    if (n > left) n = (size_t)left;
    size_t got = 0;
    int rc;
    if (e->method == 0) {
        if ((rc = npyg__zip_read(z, e->data_offset + z->out_done, dst, n))) return rc;
        z->in_done += n;
        got = n;
    } else {
        if ((rc = inflate_some(z, dst, n, &got))) return rc;
        if (got == 0)
            return zfail(z->ctx, NPYG_EZIP_SIZE, in_pos(z), "'%s' inflates to %llu bytes, %llu declared", e->name,
                         (unsigned long long)z->out_done, (unsigned long long)e->uncompressed_size);
    }
    z->crc = npyg__crc32(z->crc, dst, got);
    z->out_done += got;
    *out = got;
    return 0;
}

static long long member_cb(void *user, void *buf, size_t len)
{
    npyg_zip *z = user;
    if (z->peek_pos < z->peek_len) {
        size_t k = z->peek_len - z->peek_pos;
        if (k > len) k = len;
        memcpy(buf, z->peek + z->peek_pos, k);
        z->peek_pos += k;
        return (long long)k;
    }
    size_t got;
    return member_read(z, buf, len, &got) ? -1 : (long long)got;
}

static int start_member(npyg_zip *z, npyg_zip_entry *e)
{
    npyg_ctx *ctx = z->ctx;
    z->cur = e;
    z->in_done = z->out_done = 0;
    z->crc = 0;
    z->stream_end = z->at_eof = false;
    z->peek_len = z->peek_pos = 0;
    if (e->method != 8) return 0;
    if (!z->inbuf) {
        z->inbuf = npyg__xalloc(ctx, NPYG__CHUNK);
        if (!z->inbuf) return member_nomem(z, e->data_offset);
    }
    z->next_in = NULL;
    z->avail_in = 0;
    if (z->inf) {
        npyg__inflate_reset(z->inf);
        return 0;
    }
    npyg__inflate_mem mem = {inf_alloc, inf_free, ctx};
    z->inf = npyg__inflate_new(&mem);
    return z->inf ? 0 : member_nomem(z, e->data_offset);
}

/* Reads the rest of a member that is not .npy: sizes and CRC still count. */
static int drain(npyg_zip *z)
{
    for (;;) {
        size_t got;
        int rc = member_read(z, z->scratch, SCRATCH_LEN, &got);
        if (rc || got == 0) return rc;
    }
}

/* The archive's inflation work is bounded as a whole, not member by
   member: the deflated members' declared sizes (which output never passes)
   must fit in inflate_budget_bytes + max_ratio x the archive's bytes. It
   is decided from the directory alone, the same for every member and in
   any order, so nothing of an archive over budget is ever inflated. */
static int check_inflate_budget(npyg_zip *z, const npyg_zip_entry *e)
{
    if (e->method != 8) return 0;
    if (!z->deflate_summed) {
        /* No overflow: opening summed every member's size without one. */
        uint64_t total = 0;
        for (uint32_t k = 0; k < z->count; k++)
            if (z->entries[k].method == 8) total += z->entries[k].uncompressed_size;
        z->deflate_total = total;
        z->deflate_summed = true;
    }
    uint64_t budget;
    if (!npyg__mul_u64(z->size, z->lim.max_ratio, &budget) ||
        !npyg__add_u64(budget, z->lim.inflate_budget_bytes, &budget))
        budget = UINT64_MAX;
    if (z->deflate_total <= budget) return 0;
    return zfail(z->ctx, NPYG_ELIMIT_INFLATE, e->header_offset,
                 "deflated members declare %llu bytes in all, over the archive's inflation budget of %llu "
                 "(inflate_budget_bytes + max_ratio x %llu archive bytes)",
                 (unsigned long long)z->deflate_total, (unsigned long long)budget, (unsigned long long)z->size);
}

/* Limits, name and magic of member i, leaving it ready to stream; *npy
   says whether it starts like .npy (numpy profile; strict refuses). */
static int begin_member(npyg_zip *z, size_t i, bool *npy)
{
    npyg_ctx *ctx = z->ctx;
    npyg__ctx_reset(ctx);
    z->loading = 0;
    if (i >= z->count) return zfail(ctx, NPYG_EINVAL, 0, "no member %zu (the archive has %u)", i, z->count);
    npyg_zip_entry *e = &z->entries[i];
    e->warnings &= ~(unsigned)(NPYG_ZW_NOT_NPY_NAME | NPYG_ZW_NOT_NPY);

    int rc;
    uint64_t cap;
    if (!npyg__mul_u64(e->compressed_size, z->lim.max_ratio, &cap)) cap = UINT64_MAX;
    if (e->uncompressed_size > z->lim.ratio_grace_bytes && e->uncompressed_size > cap)
        return zfail(ctx, NPYG_ELIMIT_RATIO, e->header_offset,
                          "'%s' declares %llu bytes from %llu compressed, over max_ratio (%llu)", e->name,
                          (unsigned long long)e->uncompressed_size, (unsigned long long)e->compressed_size,
                          (unsigned long long)z->lim.max_ratio);
    if ((rc = check_inflate_budget(z, e))) return rc;
    if (!npyg__zip_ends_npy(e)) {
        if (npyg__zip_strict(z))
            return zfail(ctx, NPYG_EZIP_NOTNPY, e->header_offset, "member '%s' is not named *.npy", e->name);
        e->warnings |= NPYG_ZW_NOT_NPY_NAME;
    }
    if ((rc = start_member(z, e))) return rc;
    while (z->peek_len < NPYG__MAGIC_LEN) {
        size_t got;
        if ((rc = member_read(z, z->peek + z->peek_len, NPYG__MAGIC_LEN - z->peek_len, &got))) return rc;
        if (got == 0) break;
        z->peek_len += got;
    }
    *npy = z->peek_len == NPYG__MAGIC_LEN && memcmp(z->peek, NPYG__MAGIC, NPYG__MAGIC_LEN) == 0;
    if (!*npy) {
        /* numpy hands such a member back as bytes, never parsed. */
        if (npyg__zip_strict(z))
            return zfail(ctx, NPYG_EZIP_NOTNPY, e->data_offset, "member '%s' does not start with \\x93NUMPY",
                              e->name);
        e->warnings |= NPYG_ZW_NOT_NPY;
    }
    return 0;
}

/* The .npy parser has returned: every byte of the member must have been
   read, so that sizes and CRC were checked. */
static int end_member(npyg_zip *z, int rc)
{
    z->ctx->parse_space = NPYG_OFFSET_FILE;
    if (rc == 0 && !z->at_eof) /* the parser stops reading at the first trailing byte only on error */
        rc = zfail(z->ctx, NPYG_EZIP_SIZE, in_pos(z), "'%s' was not read to its end", z->cur->name);
    if (rc) z->ctx->have_info = false;
    return rc;
}

int npyg_zip_validate_member(npyg_zip *z, size_t i)
{
    if (!z) return NPYG_EINVAL;
    bool npy = false;
    int rc = begin_member(z, i, &npy);
    if (rc) return rc;
    if (!npy) return drain(z);
    z->ctx->parse_space = NPYG_OFFSET_MEMBER;
    npyg__input in = npyg__input_of_read(member_cb, z);
    return end_member(z, npyg__validate_input(z->ctx, &in));
}

int npyg_zip_open_member(npyg_zip *z, size_t i)
{
    if (!z) return NPYG_EINVAL;
    bool npy = false;
    int rc = begin_member(z, i, &npy);
    if (rc) return rc;
    if (npy) {
        z->ctx->parse_space = NPYG_OFFSET_MEMBER;
        npyg__input in = npyg__input_of_read(member_cb, z);
        rc = npyg__open_input(z->ctx, &in);
        z->ctx->parse_space = NPYG_OFFSET_FILE;
    }
    if (!rc) z->loading = npy ? 1 : 2;
    return rc;
}

int npyg_zip_read_member(npyg_zip *z, void *dst, size_t size)
{
    if (!z) return NPYG_EINVAL;
    npyg_ctx *ctx = z->ctx;
    int loading = z->loading;
    z->loading = 0;
    if (loading == 1) {
        ctx->parse_space = NPYG_OFFSET_MEMBER;
        int rc = npyg_read_payload(ctx, dst, size);
        if (rc == NPYG_EINVAL && ctx->load_state == NPYG__LOAD_OPEN) { /* a wrong size only: the member stays open */
            ctx->parse_space = NPYG_OFFSET_FILE;
            z->loading = 1;
            return rc;
        }
        return end_member(z, rc);
    }
    memset(&ctx->err, 0, sizeof ctx->err);
    if (loading == 0) return npyg__fail(ctx, NPYG_EBADSTATE, 0, "no member is open for reading");
    npyg_zip_entry *e = z->cur;
    if (dst && size != e->uncompressed_size) {
        z->loading = loading;
        return npyg__fail(ctx, NPYG_EINVAL, 0, "buffer of %zu bytes for a member of %llu", size,
                          (unsigned long long)e->uncompressed_size);
    }
    if (!dst) return drain(z);
    uint8_t *out = dst;
    memcpy(out, z->peek, z->peek_len);
    for (size_t done = z->peek_len;;) {
        /* Past the last byte, one more read ends the member: sizes, CRC. */
        size_t got;
        int rc = done < size ? member_read(z, out + done, size - done, &got) : member_read(z, z->scratch, 1, &got);
        if (rc) return rc;
        if (got == 0) return 0;
        done += got;
    }
}

/* ---------------- what an object member's pickle imports ---------------- */

/* Opens the member as validation does (ratio and inflation budget first,
   nothing inflated past them), then lets the scanner read it. */
int npyg_zip_scan_member_pickle(npyg_zip *z, size_t i, const npyg_pickle_limits *limits,
                                npyg_pickle_report **out)
{
    if (out) *out = NULL;
    if (!z) return NPYG_EINVAL;
    bool npy = false;
    int rc = begin_member(z, i, &npy);
    if (rc) return rc;
    npyg_ctx *ctx = z->ctx;
    ctx->parse_space = NPYG_OFFSET_MEMBER;
    npyg__input in = npyg__input_of_read(member_cb, z);
    rc = npyg__pickle_scan_npy_input(ctx, &in, limits, out);
    ctx->parse_space = NPYG_OFFSET_FILE;
    return rc;
}
