/*
 * Framing and inputs: magic, version, the length field, the header bytes,
 * then the payload accounted for (and streamed to the sink) in bounded
 * chunks. Three sources share one path: a buffer, a descriptor, a callback.
 */
#include "internal.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef npyg__source source;

/* Reads up to n bytes; fewer only at end of input. -1 on error. */
long long npyg__src_read(source *s, void *dst, size_t n)
{
    size_t got = 0;
    if (s->buf) {
        size_t avail = s->pos < s->len ? s->len - (size_t)s->pos : 0;
        got = n < avail ? n : avail;
        if (dst) memcpy(dst, s->buf + s->pos, got);
        s->pos += got;
        return (long long)got;
    }
    if (s->positional && s->pos < s->prefix_len && n) {
        got = n < s->prefix_len - s->pos ? n : s->prefix_len - (size_t)s->pos;
        memcpy(dst, s->prefix + s->pos, got);
    }
    while (got < n) {
        long long r;
        if (s->positional) {
            ssize_t rr = pread(s->fd, (char *)dst + got, n - got, (off_t)(s->start + s->pos + got));
            if (rr < 0) {
                if (errno == EINTR) continue;
                return -1;
            }
            r = rr;
        } else if (s->fn) {
            r = s->fn(s->user, (char *)dst + got, n - got);
            if (r < 0 || (size_t)r > n - got) return -1;
        } else {
            ssize_t rr = read(s->fd, (char *)dst + got, n - got);
            if (rr < 0) {
                if (errno == EINTR) continue;
                return -1;
            }
            r = rr;
        }
        if (r == 0) break;
        got += (size_t)r;
    }
    s->pos += got;
    return (long long)got;
}

static int io_error(npyg_ctx *ctx, uint64_t at)
{
    return npyg__fail(ctx, NPYG_EIO, at, "read error");
}

/* Magic, version and length field: at most 12 bytes. */
static int read_preamble(npyg_ctx *ctx, source *s, uint32_t *hlen, unsigned *lensize)
{
    uint8_t pre[12];
    long long got = npyg__src_read(s, pre, 8);
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
    got = npyg__src_read(s, pre + 8, *lensize);
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

int npyg__parse_from_buffer(npyg_ctx *ctx, source *s)
{
    uint32_t hlen = 0;
    unsigned lensize = 0;
    int rc = read_preamble(ctx, s, &hlen, &lensize);
    if (rc) return rc;
    uint64_t avail = s->len - s->pos;
    if (hlen > avail)
        return npyg__fail(ctx, NPYG_ETRUNC_HEADER, s->len,
                          "file ends inside the header (%u bytes declared, %llu present)", hlen,
                          (unsigned long long)avail);
    const char *text = (const char *)s->buf + s->pos;
    s->pos += hlen;
    return finish_header(ctx, text, hlen, lensize);
}

int npyg__parse_from_stream(npyg_ctx *ctx, source *s)
{
    uint32_t hlen = 0;
    unsigned lensize = 0;
    int rc = read_preamble(ctx, s, &hlen, &lensize);
    if (rc) return rc;
    if (s->size_known && hlen > s->size - s->pos)
        return npyg__fail(ctx, NPYG_ETRUNC_HEADER, s->size,
                          "file ends inside the header (%u bytes declared, %llu present)", hlen,
                          (unsigned long long)(s->size - s->pos));
    char *text = hlen ? npyg__arena_alloc(&ctx->arena, hlen) : NULL;
    if (hlen && !text) return npyg__nomem(ctx, s->pos);
    long long got = npyg__src_read(s, text, hlen);
    if (got < 0) return io_error(ctx, s->pos);
    if ((uint64_t)got < hlen)
        return npyg__fail(ctx, NPYG_ETRUNC_HEADER, s->pos,
                          "file ends inside the header (%u bytes declared, %lld present)", hlen, got);
    return finish_header(ctx, text, hlen, lensize);
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

int npyg__payload_from_buffer(npyg_ctx *ctx, source *s)
{
    uint64_t avail = s->len - s->pos, need = ctx->info.payload_bytes;
    if (avail < need) return npyg__truncated(ctx, avail);
    for (uint64_t done = 0; done < need;) {
        size_t n = need - done < NPYG__CHUNK ? (size_t)(need - done) : NPYG__CHUNK;
        int rc = npyg__sink(ctx, s->buf + s->pos + done, n, s->pos + done);
        if (rc) return rc;
        done += n;
    }
    return npyg__trailing(ctx, avail - need);
}

int npyg__payload_from_stream(npyg_ctx *ctx, source *s)
{
    uint64_t need = ctx->info.payload_bytes;
    if (s->size_known && !ctx->sink) { /* a regular file: its size says it all */
        uint64_t avail = s->size > s->pos ? s->size - s->pos : 0;
        if (avail < need) return npyg__truncated(ctx, avail);
        return npyg__trailing(ctx, avail - need);
    }
    if (!ctx->readbuf) {
        ctx->readbuf = npyg__xalloc(ctx, NPYG__CHUNK);
        if (!ctx->readbuf) return npyg__nomem(ctx, s->pos);
    }
    uint64_t done = 0;
    while (done < need) {
        size_t n = need - done < NPYG__CHUNK ? (size_t)(need - done) : NPYG__CHUNK;
        long long got = npyg__src_read(s, ctx->readbuf, n);
        if (got < 0) return io_error(ctx, s->pos);
        int rc = npyg__sink(ctx, ctx->readbuf, (size_t)got, s->pos - (uint64_t)got);
        if (rc) return rc;
        done += (uint64_t)got;
        if ((size_t)got < n) return npyg__truncated(ctx, done);
    }
    if (s->size_known) return npyg__trailing(ctx, s->size > s->pos ? s->size - s->pos : 0);
    uint64_t extra = 0;
    for (;;) {
        long long got = npyg__src_read(s, ctx->readbuf, NPYG__CHUNK);
        if (got < 0) return io_error(ctx, s->pos);
        if (got == 0) break;
        extra += (uint64_t)got;
        if (ctx->profile == NPYG_PROFILE_STRICT) break; /* one byte is enough to refuse */
    }
    return npyg__trailing(ctx, extra);
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
    source s = {.buf = buf ? buf : (const void *)"", .len = len, .fd = -1};
    return done(ctx, npyg__parse_from_buffer(ctx, &s));
}

int npyg_validate_buffer(npyg_ctx *ctx, const void *buf, size_t len)
{
    if (!ctx) return NPYG_EINVAL;
    npyg__ctx_reset(ctx);
    if (!buf && len) return npyg__fail(ctx, NPYG_EINVAL, 0, "NULL buffer");
    source s = {.buf = buf ? buf : (const void *)"", .len = len, .fd = -1};
    int rc = npyg__parse_from_buffer(ctx, &s);
    if (!rc) rc = npyg__payload_from_buffer(ctx, &s);
    return done(ctx, rc);
}

int npyg__fd_source(npyg_ctx *ctx, int fd, npyg__source *s, uint8_t *head, size_t head_size)
{
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) return npyg__fail(ctx, NPYG_EIO, 0, "cannot stat the file descriptor");
    if (!S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode) && !S_ISSOCK(st.st_mode))
        return npyg__fail(ctx, NPYG_ENOTREG, 0, "not a regular file or pipe");
    *s = (npyg__source){.fd = fd};
    if (S_ISREG(st.st_mode)) {
        /* A regular file is read with pread from the current position,
           which stays where it was; one read usually holds the preamble
           and the whole header. */
        off_t here = lseek(fd, 0, SEEK_CUR);
        if (here >= 0 && here <= st.st_size) {
            s->size_known = true;
            s->size = (uint64_t)(st.st_size - here);
            s->positional = true;
            s->start = (uint64_t)here;
            size_t want = s->size < head_size ? (size_t)s->size : head_size;
            ssize_t got;
            do got = pread(fd, head, want, here);
            while (got < 0 && errno == EINTR);
            if (got < 0) return npyg__fail(ctx, NPYG_EIO, 0, "read error");
            s->prefix = head;
            s->prefix_len = (size_t)got;
        }
    }
    return 0;
}

int npyg_validate_fd(npyg_ctx *ctx, int fd)
{
    if (!ctx) return NPYG_EINVAL;
    npyg__ctx_reset(ctx);
    source s;
    uint8_t head[4096];
    int rc = npyg__fd_source(ctx, fd, &s, head, sizeof head);
    if (!rc) rc = npyg__parse_from_stream(ctx, &s);
    if (!rc) rc = npyg__payload_from_stream(ctx, &s);
    return done(ctx, rc);
}

int npyg_validate_read(npyg_ctx *ctx, npyg_read_fn fn, void *user)
{
    if (!ctx) return NPYG_EINVAL;
    npyg__ctx_reset(ctx);
    if (!fn) return npyg__fail(ctx, NPYG_EINVAL, 0, "NULL read callback");
    source s = {.fd = -1, .fn = fn, .user = user};
    int rc = npyg__parse_from_stream(ctx, &s);
    if (!rc) rc = npyg__payload_from_stream(ctx, &s);
    return done(ctx, rc);
}
