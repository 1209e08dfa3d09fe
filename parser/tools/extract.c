/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * HDF5 and MAT v7.3 datasets as read by libhdf5 in the sandbox
 * (npyg_hdf5_load), for pipelines that never touch libhdf5:
 *
 *  --extract OUT.npz  every dataset as one member of a strict .npz (what
 *                     numpy.savez writes: stored, zip64 local headers),
 *                     named by its path without the leading '/' plus
 *                     ".npy" ("/g/x" -> "g/x.npy"; np.load's key "g/x").
 *                     Numbers, fixed strings, compounds as h5py reads
 *                     them; variable-length strings and object references
 *                     (as the paths they name) as numpy bytes arrays 'S<n>',
 *                     n the longest; a null dataspace has no array and no
 *                     member. Variable-length sequences cannot be written
 *                     without pickles: refused. The archive is written
 *                     beside OUT and renamed over it only when complete.
 *                     A path that cannot be a member every reader opens
 *                     the same way is refused, and nothing is written:
 *                     a name `--strict` refuses (a backslash, a control
 *                     character, a leading drive letter "C:", bytes that
 *                     are not UTF-8), and two datasets whose members
 *                     collide: equal once ASCII case is folded ("/A" and
 *                     "/a"), one's key the other's name ("/a" -> "a.npy",
 *                     "/a.npy" -> key "a.npy"), or a member where another
 *                     needs a directory ("/g" -> "g.npy" beside
 *                     "/g.npy/x"). The error names both paths.
 *  --hash             the SHA-256 of each dataset's payload as read (C
 *                     order, the dtype above; lengths then data for the
 *                     variable-length forms), on the dataset's report line.
 */
#define _GNU_SOURCE
#include "npyvalidate.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

/* ---------------- .npy bytes ---------------- */

/* The header numpy's writer makes for descr and shape (version 1.0). */
static size_t npy_header(char *out, size_t cap, const char *descr, uint32_t ndim, const uint64_t *shape)
{
    char text[4096 + 64 * 24];
    size_t o = (size_t)snprintf(text, sizeof text, "{'descr': %s, 'fortran_order': False, 'shape': (", descr);
    for (uint32_t i = 0; i < ndim && o < sizeof text - 48; i++)
        o += (size_t)snprintf(text + o, sizeof text - o, i ? ", %llu" : "%llu", (unsigned long long)shape[i]);
    o += (size_t)snprintf(text + o, sizeof text - o, "%s), }", ndim == 1 ? "," : "");
    size_t total = (10 + o + 1 + 63) / 64 * 64;
    if (total > cap || total - 10 > 65535) return 0;
    memcpy(out, "\x93NUMPY\x01\x00", 8);
    out[8] = (char)((total - 10) & 0xff);
    out[9] = (char)((total - 10) >> 8);
    memcpy(out + 10, text, o);
    memset(out + 10 + o, ' ', total - 11 - o);
    out[total - 1] = '\n';
    return total;
}

static uint64_t le64(const unsigned char *b)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = v << 8 | b[i];
    return v;
}

/* The str and ref forms as one 'S<n>' array: every item null-padded to
   the longest (HDF5 strings hold no NUL, so nothing is lost). */
static bool as_bytes_array(pending *p, void **out, uint64_t *size, char *descr, size_t dcap)
{
    const unsigned char *len = p->buf[0], *data = p->buf[1];
    uint64_t count = p->size[0] / 8, width = 1;
    for (uint64_t i = 0; i < count; i++)
        if (le64(len + 8 * i) > width) width = le64(len + 8 * i);
    if (count && width > (SIZE_MAX - 1) / count) return false;
    unsigned char *b = calloc(count ? (size_t)(count * width) : 1, 1);
    if (!b) die_oom();
    for (uint64_t i = 0, at = 0; i < count; i++) {
        uint64_t n = le64(len + 8 * i);
        memcpy(b + i * width, data + at, (size_t)n);
        at += n;
    }
    snprintf(descr, dcap, "'|S%llu'", (unsigned long long)width);
    *out = b;
    *size = count * width;
    return true;
}

/* ---------------- a strict .npz ---------------- */

typedef struct zentry {
    char *name;
    char *path;             /* the dataset's, for a collision's error */
    uint32_t crc;
    uint64_t size, offset;
} zentry;

typedef struct zwriter {
    collector c;
    int fd;
    uint64_t at;
    zentry *e;
    size_t n, cap;
    bool failed;
} zwriter;

static void put16(unsigned char *b, uint16_t v) { b[0] = (unsigned char)v, b[1] = (unsigned char)(v >> 8); }
static void put32(unsigned char *b, uint32_t v) { put16(b, (uint16_t)v), put16(b + 2, (uint16_t)(v >> 16)); }
static void put64(unsigned char *b, uint64_t v) { put32(b, (uint32_t)v), put32(b + 4, (uint32_t)(v >> 32)); }

static void zwrite(zwriter *z, const void *buf, size_t len)
{
    if (z->failed) return;
    if (write_all(z->fd, buf, len)) z->at += len;
    else z->failed = true;
}

static bool utf8_plain(const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if (*p >= 0x80) return false;
    return true;
}

/* Well-formed UTF-8 (no overlong forms, surrogates or code points past
   U+10FFFF), as --strict and zipfile take a flagged name. */
static bool utf8_valid(const unsigned char *s)
{
    while (*s) {
        unsigned c = *s, n = c < 0x80 ? 0 : c >= 0xc2 && c <= 0xdf ? 1 : c >= 0xe0 && c <= 0xef ? 2
                                           : c >= 0xf0 && c <= 0xf4 ? 3 : 4;
        if (n == 4) return false;
        unsigned cp = n ? c & (0x3fu >> n) : c;
        for (unsigned i = 1; i <= n; i++) {
            if ((s[i] & 0xc0) != 0x80) return false;
            cp = cp << 6 | (s[i] & 0x3fu);
        }
        if ((n == 2 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) || (n == 3 && (cp < 0x10000 || cp > 0x10ffff)))
            return false;
        s += n + 1;
    }
    return true;
}

/* Why a path's bytes cannot name a member that --strict accepts and
   every unzip writes as named; NULL when they can. */
static const char *name_fault(const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '\\') return "a backslash, which Windows readers take for a directory";
        if (*p < 0x20 || *p == 0x7f) return "a control character";
    }
    if (((s[0] | 0x20) >= 'a' && (s[0] | 0x20) <= 'z') && s[1] == ':') return "a leading drive letter";
    if (!utf8_valid((const unsigned char *)s)) return "bytes that are not UTF-8";
    return NULL;
}

/* path as the scan's records show it (h5internal.h): control bytes, the
   backslash and bytes above 0x7e as \xNN, so that an error prints no
   terminal control sequence; cut to fit out. */
static const char *shown(const char *path, char *out, size_t size)
{
    static const char hex[] = "0123456789abcdef";
    size_t o = 0;
    for (const unsigned char *p = (const unsigned char *)path; *p && o + 5 < size; p++)
        if (*p < 0x20 || *p >= 0x7f || *p == '\\') {
            out[o++] = '\\', out[o++] = 'x', out[o++] = hex[*p >> 4], out[o++] = hex[*p & 15];
        } else {
            out[o++] = (char)*p;
        }
    out[o] = '\0';
    return out;
}

/* The member name of a dataset path, or NULL with why. */
static char *member_name(const char *path, char *why, size_t wsize)
{
    const char *s = path + 1;
    const char *fault = name_fault(s);
    if (fault) {
        char esc[600];
        snprintf(why, wsize, "%s: a path with %s cannot name an archive member: nothing written",
                 shown(path, esc, sizeof esc), fault);
        return NULL;
    }
    for (const char *k = s;;) {
        const char *j = strchr(k, '/');
        size_t len = j ? (size_t)(j - k) : strlen(k);
        if (len == 0 || (len == 1 && k[0] == '.') || (len == 2 && k[0] == '.' && k[1] == '.')) {
            snprintf(why, wsize, "%s: a path with an empty, '.' or '..' component cannot name a member", path);
            return NULL;
        }
        if (!j) break;
        k = j + 1;
    }
    size_t n = strlen(s);
    if (n + 5 > 65535) {
        snprintf(why, wsize, "%s: too long for a member name", path);
        return NULL;
    }
    char *name = malloc(n + 5);
    if (!name) die_oom();
    memcpy(name, s, n);
    memcpy(name + n, ".npy", 5);
    return name;
}

static int write_member(collector *c)
{
    zwriter *z = (zwriter *)c;
    pending *p = &c->p;
    if (!strcmp(p->form, "vlen")) {
        snprintf(c->why, sizeof c->why, "%s: a variable-length sequence cannot be written as .npy without pickles",
                 p->path);
        return 1;
    }
    void *data = p->buf[0];
    uint64_t size = p->size[0];
    char descr[64];
    const char *d = p->descr;
    void *made = NULL;
    if (strcmp(p->form, "array")) {
        if (p->n != 2 || !as_bytes_array(p, &made, &size, descr, sizeof descr)) {
            snprintf(c->why, sizeof c->why, "%s: strings too long to write", p->path);
            return 1;
        }
        data = made, d = descr;
    }
    char *name = member_name(p->path, c->why, sizeof c->why);
    if (!name) {
        free(made);
        return 1;
    }
    char head[4096 + 64 * 24 + 128];
    size_t hl = npy_header(head, sizeof head, d, p->ndim, p->shape);
    if (!hl) {
        snprintf(c->why, sizeof c->why, "%s: a .npy header too long", p->path);
        free(made);
        free(name);
        return 1;
    }
    uLong crc = crc32(0L, (const Bytef *)head, (uInt)hl);
    for (uint64_t at = 0; at < size;) {
        uInt step = size - at > (1u << 30) ? (1u << 30) : (uInt)(size - at);
        crc = crc32(crc, (const Bytef *)data + at, step);
        at += step;
    }
    if (z->n == z->cap) {
        z->cap = z->cap ? 2 * z->cap : 64;
        if (!(z->e = realloc(z->e, z->cap * sizeof *z->e))) die_oom();
    }
    zentry *e = &z->e[z->n++];
    e->name = name;
    if (!(e->path = strdup(p->path))) die_oom();
    e->crc = (uint32_t)crc;
    e->size = hl + size;
    e->offset = z->at;
    size_t nl = strlen(name);
    unsigned char lh[30 + 20];
    put32(lh, 0x04034b50);
    put16(lh + 4, 45);
    put16(lh + 6, utf8_plain(name) ? 0 : 0x800);
    put16(lh + 8, 0);
    put16(lh + 10, 0);      /* 00:00 */
    put16(lh + 12, 0x21);   /* 1980-01-01 */
    put32(lh + 14, e->crc);
    put32(lh + 18, 0xffffffffu);
    put32(lh + 22, 0xffffffffu);
    put16(lh + 26, (uint16_t)nl);
    put16(lh + 28, 20);
    zwrite(z, lh, 30);
    zwrite(z, name, nl);
    put16(lh, 1);
    put16(lh + 2, 16);
    put64(lh + 4, e->size);
    put64(lh + 12, e->size);
    zwrite(z, lh, 20);
    zwrite(z, head, hl);
    zwrite(z, data, (size_t)size);
    free(made);
    if (z->failed) snprintf(c->why, sizeof c->why, "cannot write the archive: %s", strerror(errno));
    return z->failed;
}

/* The central directory and the end records (zip64 ones when needed). */
static void finish_zip(zwriter *z)
{
    uint64_t cd = z->at;
    for (size_t i = 0; i < z->n; i++) {
        zentry *e = &z->e[i];
        bool big = e->size >= 0xffffffffu, far = e->offset >= 0xffffffffu;
        unsigned char h[46], x[4 + 24];
        size_t xl = 0;
        if (big || far) {
            put16(x, 1);
            xl = 4;
            if (big) put64(x + xl, e->size), xl += 8, put64(x + xl, e->size), xl += 8;
            if (far) put64(x + xl, e->offset), xl += 8;
            put16(x + 2, (uint16_t)(xl - 4));
        }
        size_t nl = strlen(e->name);
        put32(h, 0x02014b50);
        put16(h + 4, 3 << 8 | 45);
        put16(h + 6, 45);
        put16(h + 8, utf8_plain(e->name) ? 0 : 0x800);
        put16(h + 10, 0);
        put16(h + 12, 0);
        put16(h + 14, 0x21);
        put32(h + 16, e->crc);
        put32(h + 20, big ? 0xffffffffu : (uint32_t)e->size);
        put32(h + 24, big ? 0xffffffffu : (uint32_t)e->size);
        put16(h + 28, (uint16_t)nl);
        put16(h + 30, (uint16_t)xl);
        put16(h + 32, 0);
        put16(h + 34, 0);
        put16(h + 36, 0);
        put32(h + 38, 0600u << 16);
        put32(h + 42, far ? 0xffffffffu : (uint32_t)e->offset);
        zwrite(z, h, 46);
        zwrite(z, e->name, nl);
        zwrite(z, x, xl);
    }
    uint64_t cd_size = z->at - cd, end64 = z->at;
    bool z64 = z->n >= 0xffff || cd >= 0xffffffffu || cd_size >= 0xffffffffu;
    unsigned char r[56 + 20];
    if (z64) {
        put32(r, 0x06064b50);
        put64(r + 4, 44);
        put16(r + 12, 45);
        put16(r + 14, 45);
        put32(r + 16, 0);
        put32(r + 20, 0);
        put64(r + 24, z->n);
        put64(r + 32, z->n);
        put64(r + 40, cd_size);
        put64(r + 48, cd);
        put32(r + 56, 0x07064b50);
        put32(r + 60, 0);
        put64(r + 64, end64);
        put32(r + 72, 1);
        zwrite(z, r, 76);
    }
    put32(r, 0x06054b50);
    put16(r + 4, 0);
    put16(r + 6, 0);
    put16(r + 8, z64 ? 0xffff : (uint16_t)z->n);
    put16(r + 10, z64 ? 0xffff : (uint16_t)z->n);
    put32(r + 12, z64 ? 0xffffffffu : (uint32_t)cd_size);
    put32(r + 16, z64 ? 0xffffffffu : (uint32_t)cd);
    put16(r + 20, 0);
    zwrite(z, r, 22);
}

/* ---------------- names that collide ---------------- */

/* What each member claims on a file system and in np.load: its name
   ('f'), its key, the name without ".npy" ('k'), and every directory it
   needs ('d'); ASCII case folded, as Windows and macOS compare names. */
typedef struct zname {
    char *fold;
    char kind;
    size_t entry;
} zname;

static int by_fold(const void *a, const void *b)
{
    const zname *x = a, *y = b;
    int c = strcmp(x->fold, y->fold);
    return c ? c : (x->entry > y->entry) - (x->entry < y->entry);
}

static char *folded(const char *s, size_t n)
{
    char *f = malloc(n + 1);
    if (!f) die_oom();
    for (size_t i = 0; i < n; i++) f[i] = s[i] >= 'A' && s[i] <= 'Z' ? (char)(s[i] | 0x20) : s[i];
    f[n] = '\0';
    return f;
}

/* Directories are shared; a key beside a directory of the same name
   ("g.npy" and "g/x.npy") is what np.savez itself writes. */
static bool collide(char a, char b) { return a != 'd' ? b != 'd' || a == 'f' : b == 'f'; }

static const char *why_collide(char a, char b)
{
    if (a == b) return "the same name once case is folded";
    if (a == 'd' || b == 'd') return "one is a file where the other needs a directory";
    return "np.load's key of one is the other's name";
}

/* true when no two members collide; else false and why names both. */
static bool names_apart(const zwriter *z, char *why, size_t wsize)
{
    size_t cap = 1, n = 0;
    for (size_t i = 0; i < z->n; i++) {
        cap += 2;
        for (const char *c = z->e[i].name; *c; c++) cap += *c == '/';
    }
    zname *v = calloc(cap, sizeof *v);
    if (!v) die_oom();
    for (size_t i = 0; i < z->n; i++) {
        const char *name = z->e[i].name;
        size_t len = strlen(name); /* ends in ".npy" */
        v[n++] = (zname){folded(name, len), 'f', i};
        v[n++] = (zname){folded(name, len - 4), 'k', i};
        for (const char *c = name; *c; c++)
            if (*c == '/') v[n++] = (zname){folded(name, (size_t)(c - name)), 'd', i};
    }
    qsort(v, n, sizeof *v, by_fold);
    bool ok = true;
    for (size_t a = 0; a < n && ok;) {
        size_t b = a, first = SIZE_MAX;
        for (; b < n && !strcmp(v[b].fold, v[a].fold); b++)
            if (first == SIZE_MAX && v[b].kind != 'd') first = b;
        /* any colliding pair of the run involves a file or a key, and
           collides with its first one too */
        for (size_t i = a; first != SIZE_MAX && i < b && ok; i++) {
            const zname *x = &v[first], *y = &v[i];
            if (y->entry == x->entry || !collide(x->kind, y->kind)) continue;
            ok = false;
            char e1[300], e2[300], n1[300], n2[300];
            snprintf(why, wsize, "%s and %s would be archive members '%s' and '%s' that collide (%s): nothing written",
                     shown(z->e[x->entry].path, e1, sizeof e1), shown(z->e[y->entry].path, e2, sizeof e2),
                     shown(z->e[x->entry].name, n1, sizeof n1), shown(z->e[y->entry].name, n2, sizeof n2),
                     why_collide(x->kind, y->kind));
        }
        a = b;
    }
    for (size_t i = 0; i < n; i++) free(v[i].fold);
    free(v);
    return ok;
}

int extract_npz(const options *o, const char *path, const char *out)
{
    int in = open(path, O_RDONLY | O_CLOEXEC);
    if (in < 0) {
        fprintf(stderr, "npyvalidate: %s: %s\n", path, strerror(errno));
        return 2;
    }
    /* beside OUT, renamed over it when complete */
    size_t ol = strlen(out);
    char *tmp = malloc(ol + 16);
    if (!tmp) die_oom();
    snprintf(tmp, ol + 16, "%s.partXXXXXX", out);
    zwriter z;
    memset(&z, 0, sizeof z);
    z.c.done = write_member;
    z.fd = mkostemp(tmp, O_CLOEXEC);
    if (z.fd < 0) {
        fprintf(stderr, "npyvalidate: cannot write beside %s: %s\n", out, strerror(errno));
        free(tmp);
        close(in);
        return 2;
    }
    npyg_ctx *ctx = new_context(o);
    npyg_hdf5_sink sink = {collect_object, collect_value, collect_end, &z.c};
    npyg_set_input_fd(ctx, in);
    int rc = npyg_hdf5_load(ctx, NULL, &sink);
    /* the last dataset is written by the sink's end, which cannot stop the load */
    if (!rc && !z.c.why[0] && names_apart(&z, z.c.why, sizeof z.c.why)) finish_zip(&z);
    if (!rc && !z.c.why[0] && (z.failed || fsync(z.fd) != 0)) {
        z.failed = true;
        snprintf(z.c.why, sizeof z.c.why, "cannot write the archive: %s", strerror(errno));
    }
    bool ok = close(z.fd) == 0 && !rc && !z.failed && !z.c.why[0] && rename(tmp, out) == 0;
    if (!ok) unlink(tmp);
    int status = 0;
    if (ok) {
        if (!o->quiet) printf("%s: %zu datasets written to %s\n", path, z.n, out);
    } else if (z.c.why[0]) {
        fprintf(stderr, "npyvalidate: %s: %s\n", path, z.c.why);
        status = z.failed ? 2 : 1;
    } else {
        const npyg_error *e = npyg_last_error(ctx);
        fprintf(stderr, "npyvalidate: %s: %s: %s\n", path, npyg_error_name(rc ? rc : NPYG_EIO),
                rc ? e->message : strerror(errno));
        status = rc ? status_of(rc) : 2;
    }
    for (size_t i = 0; i < z.n; i++) free(z.e[i].name), free(z.e[i].path);
    free(z.e);
    free(tmp);
    npyg_ctx_free(ctx);
    close(in);
    return status;
}
