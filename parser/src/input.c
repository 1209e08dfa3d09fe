/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Input: the one place that reads what the caller gave. A context holds
 * the input npyg_set_input_* set; each call makes its own from it (for a
 * descriptor: fstat, the kind of file, the current position, the first
 * bytes), and every format reads through it. EINTR is retried and short
 * reads are continued here, and nowhere else.
 */
#include "internal.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---------------- setting the input ---------------- */

/* The arguments are checked here and again when a call begins, which
   refuses them with a message: a caller that ignores this return value
   still gets the error from the call. */
int npyg_set_input_buffer(npyg_ctx *ctx, const void *buf, size_t len)
{
    if (!ctx) return NPYG_EINVAL;
    ctx->input = (npyg__input){.kind = NPYG__IN_BUFFER, .buf = buf, .fd = -1, .size_known = true, .size = len};
    return !buf && len ? NPYG_EINVAL : 0;
}

int npyg_set_input_fd(npyg_ctx *ctx, int fd)
{
    if (!ctx) return NPYG_EINVAL;
    ctx->input = (npyg__input){.kind = NPYG__IN_FD, .fd = fd};
    return fd < 0 ? NPYG_EINVAL : 0;
}

int npyg_set_input_read(npyg_ctx *ctx, npyg_read_fn fn, void *user)
{
    if (!ctx) return NPYG_EINVAL;
    ctx->input = npyg__input_of_read(fn, user);
    return fn ? 0 : NPYG_EINVAL;
}

int npyg_set_input_pread(npyg_ctx *ctx, npyg_pread_fn fn, void *user, uint64_t size)
{
    if (!ctx) return NPYG_EINVAL;
    ctx->input = (npyg__input){.kind = NPYG__IN_PREAD, .fd = -1, .pread = fn, .user = user,
                               .size_known = true, .size = size};
    return fn ? 0 : NPYG_EINVAL;
}

npyg__input npyg__input_of_read(npyg_read_fn fn, void *user)
{
    return (npyg__input){.kind = NPYG__IN_READ, .fd = -1, .read = fn, .user = user};
}

/* ---------------- a call begins ---------------- */

/* Up to n bytes at off of a regular file: pread, retried on EINTR and
   continued after a short read until the end of the file. One call at
   least, also for n 0: an empty file is read like any other, and a
   descriptor that cannot be read says so. */
static long long pread_full(int fd, void *dst, size_t n, uint64_t off)
{
    size_t got = 0;
    do {
        ssize_t r = pread(fd, (char *)dst + got, n - got, (off_t)(off + got));
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) return -1;
        if (r == 0) break;
        got += (size_t)r;
    } while (got < n);
    return (long long)got;
}

static int fd_begin(npyg_ctx *ctx, npyg__input *in, unsigned flags, int space, const char *notreg)
{
    struct stat st;
    if (in->fd < 0 || fstat(in->fd, &st) != 0)
        return npyg__fail_in(ctx, space, NPYG_EIO, 0, "cannot stat the file descriptor");
    bool random = flags & NPYG__IN_RANDOM;
    if (!S_ISREG(st.st_mode) && (random || (!S_ISFIFO(st.st_mode) && !S_ISSOCK(st.st_mode))))
        return npyg__fail_in(ctx, space, NPYG_ENOTREG, 0, "%s", notreg ? notreg : "not a regular file or pipe");
    in->kind = NPYG__IN_STREAM;
    if (!S_ISREG(st.st_mode)) return 0;
    /* A regular file is read from its current position, which stays where
       it was: lseek only reports it. */
    off_t here = lseek(in->fd, 0, SEEK_CUR);
    if (here < 0 || here > st.st_size) {
        if (random) return npyg__fail_in(ctx, space, NPYG_EIO, 0, "cannot read the file position");
        return 0; /* read(2) from wherever it is */
    }
    in->kind = NPYG__IN_FILE;
    in->base = (uint64_t)here;
    in->size_known = true;
    in->size = (uint64_t)(st.st_size - here);
    if (!(flags & NPYG__IN_KEEP_HEAD)) return 0;
    size_t want = in->size < NPYG__HEAD ? (size_t)in->size : NPYG__HEAD;
    long long got = pread_full(in->fd, ctx->head, want, in->base);
    if (got < 0) return npyg__fail_in(ctx, space, NPYG_EIO, 0, "read error");
    in->head = ctx->head;
    in->head_len = (size_t)got;
    return 0;
}

int npyg__input_begin(npyg_ctx *ctx, npyg__input *in, unsigned flags, int space, const char *notreg)
{
    *in = ctx->input;
    in->pos = 0;
    in->head = NULL;
    in->head_len = 0;
    switch (in->kind) {
    case NPYG__IN_BUFFER:
        if (!in->buf && in->size) return npyg__fail_in(ctx, space, NPYG_EINVAL, 0, "NULL buffer");
        if (!in->buf) in->buf = (const uint8_t *)"";
        return 0;
    case NPYG__IN_FD:
        return fd_begin(ctx, in, flags, space, notreg);
    case NPYG__IN_READ:
        if (!in->read) return npyg__fail_in(ctx, space, NPYG_EINVAL, 0, "NULL read callback");
        if (flags & NPYG__IN_RANDOM)
            return npyg__fail_in(ctx, space, NPYG_ENOTREG, 0, "%s",
                                 notreg ? notreg : "the input is read in order only");
        return 0;
    case NPYG__IN_PREAD:
        if (!in->pread) return npyg__fail_in(ctx, space, NPYG_EINVAL, 0, "NULL read callback");
        return 0;
    default:
        return npyg__fail_in(ctx, space, NPYG_EINVAL, 0, "no input was set (npyg_set_input_*)");
    }
}

/* ---------------- reading ---------------- */

long long npyg__in_read_at(npyg__input *in, uint64_t off, void *dst, size_t n)
{
    /* A file is read as far as it gives, whatever fstat said (/proc's
       files say 0); a buffer or a callback is held to its size. */
    if (in->kind != NPYG__IN_FILE) {
        if (off >= in->size) return 0;
        if (n > in->size - off) n = (size_t)(in->size - off);
    }
    if (in->buf) {
        memcpy(dst, in->buf + off, n);
        return (long long)n;
    }
    size_t got = 0;
    if (off < in->head_len) {
        got = n < in->head_len - off ? n : in->head_len - (size_t)off;
        memcpy(dst, in->head + off, got);
    }
    if (in->kind == NPYG__IN_FILE) {
        long long r = got < n ? pread_full(in->fd, (char *)dst + got, n - got, in->base + off + got) : 0;
        return r < 0 ? -1 : (long long)got + r;
    }
    while (got < n) { /* NPYG__IN_PREAD */
        long long r = in->pread(in->user, (char *)dst + got, n - got, off + got);
        if (r < 0 || (size_t)r > n - got) return -1;
        if (r == 0) break;
        got += (size_t)r;
    }
    return (long long)got;
}

/* One read of a stream or callback: up to n bytes, 0 at the end. */
static long long read_once(npyg__input *in, void *dst, size_t n)
{
    if (in->kind == NPYG__IN_READ) {
        long long r = in->read(in->user, dst, n);
        return r < 0 || (size_t)r > n ? -1 : r;
    }
    for (;;) {
        ssize_t r = read(in->fd, dst, n);
        if (r >= 0 || errno != EINTR) return r;
    }
}

long long npyg__in_read_other(npyg__input *in, void *dst, size_t n)
{
    size_t got = 0;
    if (in->size_known) {
        long long r = npyg__in_read_at(in, in->pos, dst, n);
        if (r < 0) return -1;
        got = (size_t)r;
    }
    while (!in->size_known && got < n) {
        long long r = read_once(in, (char *)dst + got, n - got);
        if (r < 0) return -1;
        if (r == 0) break;
        got += (size_t)r;
    }
    in->pos += got;
    return (long long)got;
}

long long npyg__in_read_some(npyg__input *in, void *dst, size_t n)
{
    if (in->size_known || n == 0) return npyg__in_read(in, dst, n);
    long long r = read_once(in, dst, n);
    if (r > 0) in->pos += (uint64_t)r;
    return r;
}
