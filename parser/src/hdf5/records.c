/* SPDX-License-Identifier: BSD-3-Clause */
/* The caged child's records, read by the parent through one fixed buffer
 * (BUF_SIZE) from a pipe that does not block. The child is assumed
 * compromised by the file: a line longer than NPYG__H5_LINE, more records
 * than the limits allow, a code outside the ones the walk reports or any
 * other garbage is a protocol error. A load's values (h5internal.h) are
 * validated by npyg_parse_header under the context's limits and checked
 * against their record before the sink is asked for a buffer of exactly
 * the validated size, which is filled straight from the pipe. */
#define _GNU_SOURCE
#include "h5parent.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Splits line at tabs into at most max fields; returns the count. */
int npyg__h5_split(char *line, char **f, int max)
{
    int n = 0;
    f[n++] = line;
    for (char *p = line; *p && n < max; p++)
        if (*p == '\t') {
            *p = '\0';
            f[n++] = p + 1;
        }
    return n;
}

static bool parse_int(const char *s, long long lo, long long hi, long long *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi) return false;
    *out = v;
    return true;
}

/* The codes the child's walk reports (walk.c, storage.c, child.c); any
   other would be the child speaking for the parent. */
static bool child_code(int code)
{
    return code == 0 || code == NPYG_ELIMIT_PAYLOAD || code == NPYG_EHDF5_OPEN ||
           code == NPYG_EHDF5_SANDBOX || (code >= NPYG_EHDF5_OBJECT && code <= NPYG_EHDF5_FORMAT) ||
           code == NPYG_ELIMIT_OBJECTS || code == NPYG_ELIMIT_NESTING ||
           (code >= NPYG_ELIMIT_PATHS && code <= NPYG_ELIMIT_LOAD);
}


/* The kind a record names; 0 for a name that is none. */
static npyg_hdf5_kind kind_named(const char *name)
{
    for (int k = NPYG_HDF5_FILE; k <= NPYG_HDF5_LINK; k++)
        if (!strcmp(name, npyg_hdf5_kind_name((npyg_hdf5_kind)k))) return (npyg_hdf5_kind)k;
    return (npyg_hdf5_kind)0;
}

/* One record; false: protocol error. */
bool npyg__h5_handle_line(reader *r, char *line, char **f, int n)
{
    (void)line;
    long long code, warn;
    if (r->ended) return false;
    if (n == 3 && !strcmp(f[0], "E")) {
        if (!parse_int(f[1], 0, 200, &code) || !child_code((int)code)) return false;
        r->ended = true;
        r->end_code = (int)code;
        snprintf(r->end_msg, sizeof r->end_msg, "%s", f[2]);
        return true;
    }
    if (n != 8 || strcmp(f[0], "O")) return false;
    if (++r->records > r->max_records) return false;
    if (!parse_int(f[1], 0, 200, &code) || !child_code((int)code) || !parse_int(f[2], 0, 0xffff, &warn))
        return false;
    uint64_t shape[NPYG__H5_MAX_DIMS];
    uint32_t ndim = 0;
    if (strcmp(f[5], "-") != 0 && f[5][0]) {
        for (char *p = f[5]; *p;) {
            char *end;
            errno = 0;
            unsigned long long v = strtoull(p, &end, 10);
            if (errno || end == p || ndim == NPYG__H5_MAX_DIMS) return false;
            shape[ndim++] = v;
            if (*end == ',') end++;
            else if (*end) return false;
            p = end;
        }
    }
    npyg_hdf5_kind kind = kind_named(f[3]);
    if (!kind) return false;
    npyg_hdf5_object o = {f[6], kind, f[4], ndim, ndim ? shape : NULL, (int)code, (unsigned)warn, f[7]};
    if (code) npyg__fail(r->ctx, (int)code, 0, "%s: %s", f[6], f[7]);
    if (r->fn && !r->stopped && r->fn(r->user, &o)) r->stopped = true;
    return true;
}




/* Up to size more bytes into dst; false at the end of the input, at the
   deadline or on an error. The pipe does not block: what is there is
   read at once, and poll waits only when it is empty. */
static bool pipe_fill(pipe_in *p, void *dst, size_t size, size_t *got)
{
    for (;;) {
        int64_t left = p->deadline - npyg__h5_now_ms();
        if (left <= 0) {
            p->timeout = true;
            return false;
        }
        ssize_t n = read(p->fd, dst, size);
        if (n > 0) {
            *got = (size_t)n;
            return true;
        }
        if (n == 0) {
            p->eof = true;
            return false;
        }
        if (errno == EINTR) continue;
        if (errno != EAGAIN) {
            p->read_errno = errno;
            return false;
        }
        struct pollfd q = {p->fd, POLLIN, 0};
        int pr = poll(&q, 1, npyg__h5_wait_slice(p->ctx, left));
        if (pr < 0 && errno != EINTR) {
            p->poll_failed = true;
            return false;
        }
        if (pr <= 0 && npyg__h5_interrupted(p->ctx)) {
            p->interrupted = true;
            return false;
        }
    }
}

/* The next line, NUL-terminated without its newline; NULL at the end of
   the input, or with *too_long for a line past NPYG__H5_LINE bytes. */
char *npyg__h5_pipe_line(pipe_in *p, bool *too_long)
{
    for (;;) {
        char *start = p->buf + p->pos, *nl = memchr(start, '\n', p->have - p->pos);
        if (nl) {
            *nl = '\0';
            p->pos = (size_t)(nl + 1 - p->buf);
            if ((size_t)(nl - start) > NPYG__H5_LINE) return *too_long = true, NULL;
            return start;
        }
        if (p->have - p->pos > NPYG__H5_LINE) return *too_long = true, NULL;
        memmove(p->buf, start, p->have - p->pos);
        p->have -= p->pos;
        p->pos = 0;
        size_t got;
        if (!pipe_fill(p, p->buf + p->have, BUF_SIZE - p->have, &got)) return NULL;
        p->have += got;
    }
}

/* Exactly n bytes into dst: what the buffer holds, then from the pipe. */
static bool pipe_bytes(pipe_in *p, void *dst, uint64_t n)
{
    if (n == 0) return true; /* dst may be NULL */
    size_t take = p->have - p->pos < n ? p->have - p->pos : (size_t)n;
    memcpy(dst, p->buf + p->pos, take);
    p->pos += take;
    char *d = (char *)dst + take;
    n -= take;
    while (n) {
        size_t got;
        if (!pipe_fill(p, d, n > (1u << 30) ? (1u << 30) : (size_t)n, &got)) return false;
        d += got;
        n -= got;
    }
    return true;
}


/* ---------------- the load records ---------------- */

/* \xNN back to its byte, in place; false for anything the child's
   escaping never writes. */
static bool unescape(char *s)
{
    char *o = s;
    for (const char *p = s; *p; p++) {
        unsigned char c = (unsigned char)*p;
        if (c < 0x20 || c >= 0x7f) return false;
        if (c != '\\') {
            *o++ = (char)c;
            continue;
        }
        unsigned v = 0;
        if (p[1] != 'x') return false;
        for (int i = 2; i < 4; i++) {
            char h = p[i];
            if (h >= '0' && h <= '9') v = v * 16 + (unsigned)(h - '0');
            else if (h >= 'a' && h <= 'f') v = v * 16 + (unsigned)(h - 'a' + 10);
            else return false;
        }
        if (v == 0 || (v >= 0x20 && v < 0x7f && v != '\\')) return false;
        *o++ = (char)v;
        p += 3;
    }
    *o = '\0';
    return true;
}

static bool one_of(const char *s, const char *a, const char *b, const char *c, const char *d)
{
    return !strcmp(s, a) || !strcmp(s, b) || (c && !strcmp(s, c)) || (d && !strcmp(s, d));
}


/* Why a load record or value broke the protocol, with its path. */
static int bad(reader *r, const char *fmt, ...) NPYG__PRINTF(2, 3);
static int bad(reader *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->why, sizeof r->why, fmt, ap);
    va_end(ap);
    return LINE_BAD;
}

/* One value of item: its .npy header validated by the context's parser
   and limits, then its payload into the sink's buffer of exactly the
   validated size. */
static int read_value(reader *r, pipe_in *p, const npyg_hdf5_item *it, unsigned i)
{
    unsigned char pre[12];
    if (!pipe_bytes(p, pre, 10)) return LINE_END;
    if (memcmp(pre, "\x93NUMPY", 6) || (pre[6] != 1 && pre[6] != 2) || pre[7])
        return bad(r, "a value without a .npy 1.0 or 2.0 preamble");
    size_t plen = pre[6] == 1 ? 10 : 12;
    if (plen == 12 && !pipe_bytes(p, pre + 10, 2)) return LINE_END;
    uint64_t hl = pre[8] | (uint64_t)pre[9] << 8;
    if (plen == 12) hl |= (uint64_t)pre[10] << 16 | (uint64_t)pre[11] << 24;
    if (hl > r->hcap - plen) {
        r->limit = NPYG_ELIMIT_HEADER;
        return bad(r, "a .npy header of %llu bytes, over max_header_bytes (%llu)", (unsigned long long)hl,
                   (unsigned long long)r->ctx->limits.max_header_bytes);
    }
    memcpy(r->hbuf, pre, plen);
    if (!pipe_bytes(p, r->hbuf + plen, hl)) return LINE_END;
    int prc = npyg_parse_header(r->ctx, r->hbuf, plen + (size_t)hl);
    if (prc) {
        if (prc >= NPYG_ELIMIT_HEADER && prc <= NPYG_ELIMIT_PAYLOAD) r->limit = prc;
        return bad(r, "npyguard refuses its .npy header: %s", npyg_last_error(r->ctx)->message);
    }
    const npyg_info *in = npyg_get_info(r->ctx);
    const npyg_dtype *dt = in->dtype;
    bool two = it->nvalues == 2;
    if (in->fortran_order) return bad(r, "a Fortran-order value");
    if (it->null_space && (in->ndim != 1 || in->shape[0] != 0))
        return bad(r, "a null dataspace sent with elements");
    if (two && i == 0 && (dt->kind != NPYG_KIND_UINT || dt->itemsize != 8 || dt->byteorder != '<'))
        return bad(r, "lengths that are not '<u8'");
    if (two && i == 1 && (in->ndim != 1 || in->count != r->sum))
        return bad(r, "%llu elements of data where the lengths sum to %llu", (unsigned long long)in->count,
                   (unsigned long long)r->sum);
    if (two && i == 1 && strcmp(it->form, "vlen") && (dt->kind != NPYG_KIND_UINT || dt->itemsize != 1))
        return bad(r, "string data that is not '|u1'");
    uint64_t end = 0;
    if (r->at_file && (!npyg__add_u64(r->at, in->payload_bytes, &end) || end > r->src->size))
        return bad(r, "a value at bytes %llu..%llu of a file of %llu", (unsigned long long)r->at,
                   (unsigned long long)r->at + in->payload_bytes, (unsigned long long)r->src->size);
    /* what the caller will hold, counted before it is asked to hold it:
       a child may name the same bytes of the file, or send the same
       value, for any number of records */
    if (!npyg__add_u64(r->loaded, in->payload_bytes, &r->loaded)) r->loaded = UINT64_MAX;
    if (r->loaded > r->max_load) {
        r->limit = NPYG_ELIMIT_LOAD;
        return bad(r, "the values sent reach %llu%s bytes, more than %llu, this file's budget (max_load_bytes "
                   "+ %u per byte of the file)", (unsigned long long)r->loaded,
                   r->loaded == UINT64_MAX ? " or more" : "", (unsigned long long)r->max_load,
                   NPYG_LOAD_BYTES_PER_BYTE);
    }
    void *dst = NULL;
    if (r->sink->value(r->sink->user, i, in, &dst)) return LINE_STOP;
    if (in->payload_bytes && !dst) return LINE_STOP;
    if (r->at_file) {
        long long got = npyg__in_read_at(r->src, r->at, dst, (size_t)in->payload_bytes);
        if (got < 0 || (uint64_t)got != in->payload_bytes)
            return bad(r, "a value the file no longer holds at bytes %llu..%llu", (unsigned long long)r->at,
                       (unsigned long long)end);
    } else if (!pipe_bytes(p, dst, in->payload_bytes)) {
        return LINE_END;
    }
    if (two && i == 0) {
        r->sum = 0;
        const unsigned char *b = dst;
        for (uint64_t k = 0; k < in->count; k++) {
            uint64_t v = 0;
            for (int j = 7; j >= 0; j--) v = v << 8 | b[8 * k + (uint64_t)j];
            if (v > UINT64_MAX - r->sum) return bad(r, "lengths whose sum overflows");
            r->sum += v;
        }
    }
    return LINE_OK;
}

/* A G, L, D or A record (h5internal.h) and its values. */
int npyg__h5_load_line(reader *r, pipe_in *p, char **f, int n)
{
    char tag = f[0][0];
    int want = tag == 'G' ? 2 : tag == 'L' ? 3 : tag == 'D' ? 5 : 6;
    if (!r->sink || f[0][1] || n != want) return LINE_BAD;
    if (++r->records > r->max_records) return LINE_BAD;
    for (int i = 1; i < n; i++)
        if (!unescape(f[i])) return LINE_BAD;
    snprintf(r->where, sizeof r->where, "%s%s%s", f[1], tag == 'A' ? "@" : "", tag == 'A' ? f[2] : "");
    if (f[1][0] != '/') return bad(r, "not an absolute path");
    npyg_hdf5_item it = {f[1],
                         tag == 'G'   ? NPYG_HDF5_GROUP
                         : tag == 'L' ? NPYG_HDF5_LINK
                         : tag == 'D' ? NPYG_HDF5_DATASET
                                      : NPYG_HDF5_ATTRIBUTE,
                         NULL, NULL, NULL, NULL, 0, 0};
    if (tag == 'L') it.target = f[2];
    if (tag == 'D' || tag == 'A') {
        char **v = f + (tag == 'A' ? 3 : 2);
        if (tag == 'A') it.name = f[2];
        r->at_file = tag == 'D' && !strcmp(v[0], "array") && !strncmp(v[2], "at:", 3);
        long long at = 0;
        if (r->at_file && !parse_int(v[2] + 3, 0, INT64_MAX, &at))
            return bad(r, "a value record with an offset that is not one");
        r->at = (uint64_t)at;
        if (!one_of(v[0], "array", "str", "ref", "vlen") || !one_of(v[1], "-", "ascii", "utf-8", NULL) ||
            (!r->at_file && !one_of(v[2], "simple", "null", NULL, NULL)))
            return bad(r, "a value record with unknown fields");
        it.form = v[0];
        it.cset = strcmp(v[1], "-") ? v[1] : NULL;
        it.null_space = !strcmp(v[2], "null");
        it.nvalues = it.null_space || !strcmp(v[0], "array") ? 1 : 2;
    }
    if (r->sink->object(r->sink->user, &it)) return LINE_STOP;
    for (unsigned i = 0; i < it.nvalues; i++) {
        int rc = read_value(r, p, &it, i);
        if (rc != LINE_OK) return rc;
    }
    r->where[0] = '\0';
    return LINE_OK;
}
