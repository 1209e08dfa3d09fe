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

/* Bytes the input holds after the header, when known without reading. */
static bool available(const npyg__source *s, uint64_t *avail)
{
    if (s->buf) *avail = s->len - s->pos;
    else if (s->size_known) *avail = s->size > s->pos ? s->size - s->pos : 0;
    else return false;
    return true;
}

static int opened(npyg_ctx *ctx, npyg__source *s, int rc)
{
    uint64_t avail;
    /* When the size of the input is known, a payload that cannot be there
       is refused now, before the caller allocates for it: same code and
       offset as the one-call validation. */
    if (!rc && available(s, &avail) && avail < ctx->info.payload_bytes)
        rc = npyg__truncated(ctx, avail);
    ctx->have_info = rc == 0;
    if (rc) return rc;
    /* The prefix lives on the opener's stack; positional reads go to the
       file from here on. */
    s->prefix = NULL;
    s->prefix_len = 0;
    ctx->load_src = *s;
    ctx->load_state = NPYG__LOAD_OPEN;
    return 0;
}

int npyg_open_buffer(npyg_ctx *ctx, const void *buf, size_t len)
{
    if (!ctx) return NPYG_EINVAL;
    npyg__ctx_reset(ctx);
    if (!buf && len) return npyg__fail(ctx, NPYG_EINVAL, 0, "NULL buffer");
    npyg__source s = {.buf = buf ? buf : (const void *)"", .len = len, .fd = -1};
    return opened(ctx, &s, npyg__parse_from_buffer(ctx, &s));
}

int npyg_open_fd(npyg_ctx *ctx, int fd)
{
    if (!ctx) return NPYG_EINVAL;
    npyg__ctx_reset(ctx);
    npyg__source s;
    uint8_t head[4096];
    int rc = npyg__fd_source(ctx, fd, &s, head, sizeof head);
    if (!rc) rc = npyg__parse_from_stream(ctx, &s);
    return opened(ctx, &s, rc);
}

int npyg_open_read(npyg_ctx *ctx, npyg_read_fn fn, void *user)
{
    if (!ctx) return NPYG_EINVAL;
    npyg__ctx_reset(ctx);
    if (!fn) return npyg__fail(ctx, NPYG_EINVAL, 0, "NULL read callback");
    npyg__source s = {.fd = -1, .fn = fn, .user = user};
    return opened(ctx, &s, npyg__parse_from_stream(ctx, &s));
}

/* The copy in the caller's buffer goes to the sink too, in the chunks the
   one-call validation uses. */
static int feed_sink(npyg_ctx *ctx, const uint8_t *p, uint64_t n)
{
    for (uint64_t done = 0; ctx->sink && done < n;) {
        size_t k = n - done < NPYG__CHUNK ? (size_t)(n - done) : NPYG__CHUNK;
        int rc = npyg__sink(ctx, p + done, k, ctx->info.data_offset + done);
        if (rc) return rc;
        done += k;
    }
    return 0;
}

/* A source whose size is known (a buffer, a regular file) holds the
   payload: opened() refused it otherwise, from the same len, size and pos,
   and only opened() makes a source readable here. */
static int into_buffer(npyg_ctx *ctx, npyg__source *s, uint8_t *dst)
{
    uint64_t need = ctx->info.payload_bytes, avail = s->len - s->pos;
    memcpy(dst, s->buf + s->pos, (size_t)need);
    s->pos += need;
    int rc = feed_sink(ctx, dst, need);
    return rc ? rc : npyg__trailing(ctx, avail - need);
}

static int into_stream(npyg_ctx *ctx, npyg__source *s, uint8_t *dst)
{
    uint64_t need = ctx->info.payload_bytes;
    /* A file that shrank since it was opened reads short: truncated. */
    long long got = npyg__src_read(s, dst, (size_t)need);
    if (got < 0) return npyg__fail(ctx, NPYG_EIO, s->pos, "read error");
    if ((uint64_t)got < need) return npyg__truncated(ctx, (uint64_t)got);
    int rc = feed_sink(ctx, dst, need);
    if (rc) return rc;
    if (s->size_known) return npyg__trailing(ctx, s->size > s->pos ? s->size - s->pos : 0);
    if (!ctx->readbuf) {
        ctx->readbuf = npyg__xalloc(ctx, NPYG__CHUNK);
        if (!ctx->readbuf) return npyg__nomem(ctx, s->pos);
    }
    uint64_t extra = 0;
    for (;;) {
        got = npyg__src_read(s, ctx->readbuf, NPYG__CHUNK);
        if (got < 0) return npyg__fail(ctx, NPYG_EIO, s->pos, "read error");
        if (got == 0) break;
        extra += (uint64_t)got;
        if (ctx->profile == NPYG_PROFILE_STRICT) break; /* one byte is enough to refuse */
    }
    return npyg__trailing(ctx, extra);
}

int npyg_read_payload(npyg_ctx *ctx, void *dst, size_t size)
{
    if (!ctx) return NPYG_EINVAL;
    memset(&ctx->err, 0, sizeof ctx->err);
    if (ctx->load_state != NPYG__LOAD_OPEN)
        return npyg__fail(ctx, NPYG_EBADSTATE, 0,
                          ctx->load_state == NPYG__LOAD_DONE ? "the payload was already read"
                                                       : "no header was opened successfully");
    if (dst && size != ctx->info.payload_bytes)
        return npyg__fail(ctx, NPYG_EINVAL, 0, "buffer of %zu bytes for a payload of %llu", size,
                          (unsigned long long)ctx->info.payload_bytes);
    ctx->load_state = NPYG__LOAD_DONE;
    npyg__source *s = &ctx->load_src;
    int rc;
    if (!dst) rc = s->buf ? npyg__payload_from_buffer(ctx, s) : npyg__payload_from_stream(ctx, s);
    else rc = s->buf ? into_buffer(ctx, s, dst) : into_stream(ctx, s, dst);
    if (rc) ctx->have_info = false;
    return rc;
}

/* ---------------- RawArray (.ra) ---------------- */
static int ra_opened(npyg_ctx *ctx, npyg__source *s, int rc)
{
    if (rc) return rc;
    s->prefix = NULL; /* on the opener's stack, as above */
    s->prefix_len = 0;
    ctx->load_src = *s;
    ctx->load_state = NPYG__LOAD_RA;
    return 0;
}

int npyg_ra_open_buffer(npyg_ctx *ctx, const void *buf, size_t len)
{
    if (!ctx) return NPYG_EINVAL;
    npyg__ctx_reset(ctx);
    if (!buf && len) return npyg__fail(ctx, NPYG_EINVAL, 0, "NULL buffer");
    npyg__source s = {.buf = buf ? buf : (const void *)"", .len = len, .fd = -1, .size_known = true, .size = len};
    return ra_opened(ctx, &s, npyg__ra_open(ctx, &s));
}

int npyg_ra_open_fd(npyg_ctx *ctx, int fd)
{
    if (!ctx) return NPYG_EINVAL;
    npyg__ctx_reset(ctx);
    npyg__source s;
    uint8_t head[4096];
    int rc = npyg__fd_source(ctx, fd, &s, head, sizeof head);
    return ra_opened(ctx, &s, rc ? rc : npyg__ra_open(ctx, &s));
}

int npyg_ra_open_read(npyg_ctx *ctx, npyg_read_fn fn, void *user)
{
    if (!ctx) return NPYG_EINVAL;
    npyg__ctx_reset(ctx);
    if (!fn) return npyg__fail(ctx, NPYG_EINVAL, 0, "NULL read callback");
    npyg__source s = {.fd = -1, .fn = fn, .user = user};
    return ra_opened(ctx, &s, npyg__ra_open(ctx, &s));
}

int npyg_ra_read_data(npyg_ctx *ctx, void *dst, size_t size)
{
    if (!ctx) return NPYG_EINVAL;
    memset(&ctx->err, 0, sizeof ctx->err);
    if (ctx->load_state != NPYG__LOAD_RA)
        return npyg__fail(ctx, NPYG_EBADSTATE, 0,
                          ctx->load_state == NPYG__LOAD_DONE ? "the data was already read"
                                                             : "no .ra file was opened successfully");
    if (dst && size != ctx->ra_info.data_bytes)
        return npyg__fail(ctx, NPYG_EINVAL, 0, "buffer of %zu bytes for %llu bytes of data", size,
                          (unsigned long long)ctx->ra_info.data_bytes);
    ctx->load_state = NPYG__LOAD_DONE;
    int rc = npyg__ra_read(ctx, &ctx->load_src, dst);
    if (rc) ctx->have_ra_info = false;
    return rc;
}
