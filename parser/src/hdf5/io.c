/* SPDX-License-Identifier: BSD-3-Clause */
/* The child's I/O: the record channel up the pipe (records escaped and
 * bounded, gathered into few writes) and libhdf5's reads and error stack,
 * for the walk (walk.c) and the load (emit.c) alike. */
#define _GNU_SOURCE
#include "h5internal.h"

#include "h5io.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

size_t npyg__h5_escape_byte(char *dst, unsigned char c)
{
    static const char hex[] = "0123456789abcdef";
    if (c >= 0x20 && c < 0x7f && c != '\\') {
        dst[0] = (char)c;
        return 1;
    }
    dst[0] = '\\';
    dst[1] = 'x';
    dst[2] = hex[c >> 4];
    dst[3] = hex[c & 15];
    return 4;
}

static void put_escaped(char *dst, size_t *o, size_t cap, const char *s, size_t max)
{
    size_t start = *o;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*o - start + 4 > max || *o + 5 > cap) {
            /* keep the line bounded; mark the cut */
            if (*o + 3 < cap) { dst[(*o)++] = '.'; dst[(*o)++] = '.'; dst[(*o)++] = '.'; }
            break;
        }
        *o += npyg__h5_escape_byte(dst + *o, *p);
    }
}

static bool write_all(int fd, const char *p, size_t len)
{
    while (len) {
        ssize_t w = write(fd, p, len);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return false;
        p += w;
        len -= (size_t)w;
    }
    return true;
}

/* The child's output, gathered: records and values go out in writes of up
   to OUT_BUF bytes, not one write each, so the parent is woken a few
   times a file rather than for every record (each wake-up costs a switch
   on both sides). The end record flushes it; a child that dies before has
   its status for a verdict, whatever it had said. */
#define OUT_BUF 65536
static struct {
    int fd;
    size_t len;
    char buf[OUT_BUF];
} outbuf = {-1, 0, {0}};

/* libhdf5 converts through a buffer of H5Pset_buffer's size, 1 MiB by
   default, allocated for every read that converts however small it is,
   and zeroed when the conversion wants a background (references,
   enumerations, compounds): 256 page faults for a one-element read. */
#define XFER_BUF (1u << 20)
#define XFER_MIN 4096u

/* A transfer list whose buffer fits elems elements of set read as mem
   (at least one element, which libhdf5 demands of a set size); the
   default when the default fits, or no list can be made. */
static hid_t xfer_for(hid_t set, hid_t mem, uint64_t elems)
{
    hid_t ft = H5Dget_type(set);
    size_t big = H5Tget_size(mem), fsz = ft >= 0 ? H5Tget_size(ft) : 0;
    if (ft >= 0) H5Tclose(ft);
    if (fsz > big) big = fsz;
    if (big == 0) return H5P_DEFAULT;
    size_t size = elems < XFER_BUF / big ? (size_t)elems * big : XFER_BUF;
    if (size < big) size = big;
    /* a conversion holds one element at its larger size, and a stored
       variable-length element (16 bytes) is larger than the type its
       dataset reports (a pointer): one string read otherwise fails */
    if (size < XFER_MIN) size = XFER_MIN;
    if (size == XFER_BUF) return H5P_DEFAULT;
    hid_t x = H5Pcreate(H5P_DATASET_XFER);
    if (x >= 0 && H5Pset_buffer(x, size, NULL, NULL) < 0) {
        H5Pclose(x);
        x = -1;
    }
    return x >= 0 ? x : H5P_DEFAULT;
}

herr_t npyg__h5_read(hid_t set, hid_t mem, hid_t mspace, hid_t fspace, uint64_t elems, void *buf)
{
    hid_t xfer = xfer_for(set, mem, elems);
    herr_t rd = H5Dread(set, mem, mspace, fspace, xfer, buf);
    if (xfer != H5P_DEFAULT) H5Pclose(xfer);
    return rd;
}

bool npyg__h5_flush(void)
{
    bool ok = outbuf.len == 0 || write_all(outbuf.fd, outbuf.buf, outbuf.len);
    outbuf.len = 0;
    return ok;
}

bool npyg__h5_write_all(int fd, const void *buf, size_t len)
{
    if (len == 0) return true; /* buf may be NULL: libhdf5's empty vlen element */
    if (fd != outbuf.fd && !npyg__h5_flush()) return false;
    outbuf.fd = fd;
    if (len > OUT_BUF - outbuf.len && !npyg__h5_flush()) return false;
    if (len >= OUT_BUF) return write_all(fd, buf, len);
    memcpy(outbuf.buf + outbuf.len, buf, len);
    outbuf.len += len;
    return true;
}

static void send_line(npyg__h5_chan *c, const char *buf, size_t len)
{
    if (!c->dead && !npyg__h5_write_all(c->out, buf, len)) c->dead = true;
}

void npyg__h5_rec_object(npyg__h5_chan *c, int code, unsigned warnings, const char *kind, const char *type,
                         int ndim, const hsize_t *dims, const char *path, const char *msg)
{
    char line[NPYG__H5_LINE];
    if (code) c->refused = true;
    size_t o = (size_t)snprintf(line, sizeof line, "O\t%d\t%u\t%s\t%s\t", code, warnings, kind, type);
    if (ndim < 0) {
        line[o++] = '-';
    } else {
        for (int i = 0; i < ndim && o + 24 < sizeof line; i++)
            o += (size_t)snprintf(line + o, sizeof line - o, i ? ",%llu" : "%llu",
                                  (unsigned long long)dims[i]);
    }
    line[o++] = '\t';
    put_escaped(line, &o, sizeof line - 2, path, NPYG__H5_PATH_MAX);
    line[o++] = '\t';
    put_escaped(line, &o, sizeof line - 2, msg ? msg : "", NPYG__H5_MSG_MAX);
    line[o++] = '\n';
    send_line(c, line, o);
}

static void rec_end(npyg__h5_chan *c, int code, const char *msg)
{
    char line[NPYG__H5_LINE];
    size_t o = (size_t)snprintf(line, sizeof line, "E\t%d\t", code);
    put_escaped(line, &o, sizeof line - 2, msg, NPYG__H5_MSG_MAX);
    line[o++] = '\n';
    send_line(c, line, o);
    if (!c->dead && !npyg__h5_flush()) c->dead = true;
}

void npyg__h5_send_end(int out, int code, const char *msg)
{
    npyg__h5_chan c = {out, false, false};
    rec_end(&c, code, msg);
}

/* The innermost message libhdf5 left on its error stack. */
static herr_t err_walk(unsigned n, const H5E_error2_t *e, void *data)
{
    (void)n;
    char *out = data;
    if (e->desc && !out[0]) snprintf(out, 160, "%s", e->desc);
    return 0;
}

void npyg__h5_last_error(char *out)
{
    out[0] = '\0';
    H5Ewalk2(H5E_DEFAULT, H5E_WALK_DOWNWARD, err_walk, out);
    if (!out[0]) snprintf(out, 160, "unknown error");
}
