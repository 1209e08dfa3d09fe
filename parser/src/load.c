/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The two-step load: npyg_open_* parses and validates the header of one
 * input and stops there; npyg_read_payload then reads the payload of that
 * same input into the caller's buffer and checks its end exactly as the
 * one-call validation does. Between the two the caller knows the shape,
 * dtype and payload size, and allocates for them knowing they are true.
 * RawArray files load the same way (npyg_ra_open_*, npyg_ra_read_data).
 */
#include "internal.h"

#include <string.h>

static int opened(npyg_ctx *ctx, npyg__input *s, int rc)
{
    uint64_t avail;
    /* When the size of the input is known, a payload that cannot be there
       is refused now, before the caller allocates for it: same code and
       offset as the one-call validation. */
    if (!rc && npyg__in_left(s, &avail) && avail < ctx->info.payload_bytes)
        rc = npyg__truncated(ctx, avail);
    ctx->have_info = rc == 0;
    if (rc) return rc;
    /* A file's first bytes stay in the context (ctx->head) until the
       next call: a small payload is served from them, unread again. */
    ctx->load_in = *s;
    ctx->load_state = NPYG__LOAD_OPEN;
    return 0;
}

int npyg__open_input(npyg_ctx *ctx, npyg__input *s)
{
    npyg__ctx_reset(ctx);
    return opened(ctx, s, npyg__parse_header_in(ctx, s));
}

int npyg_open(npyg_ctx *ctx)
{
    if (!ctx) return NPYG_EINVAL;
    npyg__ctx_reset(ctx);
    npyg__input s;
    int rc = npyg__input_begin(ctx, &s, NPYG__IN_KEEP_HEAD, NPYG_OFFSET_FILE, NULL);
    if (!rc) rc = npyg__parse_header_in(ctx, &s);
    if (!rc) rc = npyg__refuse_polyglot(ctx, &s, NPYG_FORMAT_NPY);
    return opened(ctx, &s, rc);
}

NPYG__INPUT_FORMS(npyg_open)

/* opened() made sure an input of known size holds the payload; one that
   shrank since reads short: truncated. */
static int into(npyg_ctx *ctx, npyg__input *s, uint8_t *dst)
{
    uint64_t need = ctx->info.payload_bytes;
    long long got = npyg__in_read(s, dst, (size_t)need);
    if (got < 0) return npyg__fail(ctx, NPYG_EIO, s->pos, "read error");
    if ((uint64_t)got < need) return npyg__truncated(ctx, (uint64_t)got);
    int rc = npyg__sink_all(ctx, dst, need, ctx->info.data_offset);
    return rc ? rc : npyg__rest(ctx, s);
}

/* The read step of either load: once, after a successful open of its
   kind, into a buffer of exactly the size that open announced. */
static int read_step(npyg_ctx *ctx, bool ra, const void *dst, size_t size)
{
    memset(&ctx->err, 0, sizeof ctx->err);
    if (ctx->load_state != (ra ? NPYG__LOAD_RA : NPYG__LOAD_OPEN)) {
        bool again = ctx->load_state == NPYG__LOAD_DONE;
        return npyg__fail(ctx, NPYG_EBADSTATE, 0, "%s",
                          ra ? again ? "the data was already read" : "no .ra file was opened successfully"
                             : again ? "the payload was already read" : "no header was opened successfully");
    }
    uint64_t want = ra ? ctx->ra_info.data_bytes : ctx->info.payload_bytes;
    if (dst && size != want)
        return ra ? npyg__fail(ctx, NPYG_EINVAL, 0, "buffer of %zu bytes for %llu bytes of data", size,
                               (unsigned long long)want)
                  : npyg__fail(ctx, NPYG_EINVAL, 0, "buffer of %zu bytes for a payload of %llu", size,
                               (unsigned long long)want);
    ctx->load_state = NPYG__LOAD_DONE;
    return 0;
}

int npyg_read_payload(npyg_ctx *ctx, void *dst, size_t size)
{
    if (!ctx) return NPYG_EINVAL;
    int rc = read_step(ctx, false, dst, size);
    if (rc) return rc;
    npyg__input *s = &ctx->load_in;
    rc = dst ? into(ctx, s, dst) : npyg__payload(ctx, s);
    if (rc) ctx->have_info = false;
    return rc;
}

/* ---------------- RawArray (.ra) ---------------- */
static int ra_opened(npyg_ctx *ctx, npyg__input *s, int rc)
{
    if (rc) return rc;
    ctx->load_in = *s;
    ctx->load_state = NPYG__LOAD_RA;
    return 0;
}

int npyg_ra_open(npyg_ctx *ctx)
{
    if (!ctx) return NPYG_EINVAL;
    npyg__ctx_reset(ctx);
    memset(&ctx->ra_info, 0, sizeof ctx->ra_info);
    npyg__input s;
    int rc = npyg__input_begin(ctx, &s, NPYG__IN_KEEP_HEAD, NPYG_OFFSET_FILE, NULL);
    if (!rc) rc = npyg__refuse_polyglot(ctx, &s, NPYG_FORMAT_RA);
    return ra_opened(ctx, &s, rc ? rc : npyg__ra_open(ctx, &s));
}

NPYG__INPUT_FORMS(npyg_ra_open)

int npyg_ra_read_data(npyg_ctx *ctx, void *dst, size_t size)
{
    if (!ctx) return NPYG_EINVAL;
    int rc = read_step(ctx, true, dst, size);
    if (rc) return rc;
    rc = npyg__ra_read(ctx, &ctx->load_in, dst);
    if (rc) ctx->have_ra_info = false;
    return rc;
}
