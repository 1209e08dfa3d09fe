/* SPDX-License-Identifier: BSD-3-Clause */
/* The load, in the child: once the walk found no hazard, every path
 * reached from the root (groups, datasets, soft links) and every
 * attribute goes up the pipe, each value as .npy bytes this file writes
 * itself (h5internal.h describes the records).
 *
 * Values are what h5py's ds[()] gives: integers and floats of a standard
 * layout and opaque data as stored (byte order kept), other integer and
 * float layouts converted by libhdf5 to the type h5py gives (layout.c),
 * fixed strings null-padded, h5py's boolean
 * enum as bool, its ('r', 'i') compounds as complex, other packed
 * compounds as structured types. Variable-length strings, object
 * references (resolved here to the path libhdf5 names) and vlen
 * sequences go as two arrays: lengths and the data end to end.
 * Anything else is refused with the object's path.
 *
 * A dataset is read and sent in pieces of at most PIECE bytes (a run of
 * whole rows, or of elements of one row), so the child holds one piece
 * whatever the dataset's size.
 */
#define _GNU_SOURCE
#include "h5io.h"
#include "h5walk.h"
#include "refnames.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PIECE (UINT64_C(1) << 20)
#define DESCR_MAX 4096u

enum form { F_ARRAY, F_STR, F_REF, F_VLEN };
static const char *const form_names[] = {"array", "str", "ref", "vlen"};

typedef struct {
    int out;
    hid_t file;
    bool dead;         /* the pipe broke: stop */
    int code;          /* the first failure, with msg */
    char msg[NPYG__H5_MSG_MAX];
    npyg__h5_refnames names; /* of referenced objects, gathered once */
} emit;

static bool failed(emit *e, int code, const char *path, const char *fmt, ...) NPYG__PRINTF(4, 5);
static bool failed(emit *e, int code, const char *path, const char *fmt, ...)
{
    if (e->code) return false;
    char why[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    e->code = code;
    snprintf(e->msg, sizeof e->msg, "%.*s: %s", (int)(sizeof e->msg - sizeof why - 4), path, why);
    return false;
}

static bool put(emit *e, const void *buf, size_t len)
{
    if (!e->dead && !npyg__h5_write_all(e->out, buf, len)) e->dead = true;
    return !e->dead;
}

/* Every byte of s, escaped as the records are (no cut); false when it
   does not fit in cap. */
static bool escape(char *dst, size_t *o, size_t cap, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*o + 5 > cap) return false;
        *o += npyg__h5_escape_byte(dst + *o, *p);
    }
    return true;
}

/* One record line: the tag, then each field escaped. */
static bool line(emit *e, const char *path, char tag, int n, ...)
{
    char buf[NPYG__H5_LINE];
    size_t o = 0;
    buf[o++] = tag;
    va_list ap;
    va_start(ap, n);
    bool ok = true;
    for (int i = 0; i < n && ok; i++) {
        buf[o++] = '\t';
        ok = escape(buf, &o, sizeof buf - 2, va_arg(ap, const char *));
    }
    va_end(ap);
    if (!ok) return failed(e, NPYG_EHDF5_OBJECT, path, "the path or name is too long to load (%u bytes a record)",
                           NPYG__H5_LINE);
    buf[o++] = '\n';
    return put(e, buf, o);
}

/* ------------------------------------------------------------ types */

typedef struct {
    enum form form;
    hid_t mem;              /* what H5Dread/H5Aread convert to */
    size_t size;            /* bytes of one element in mem (vlen: the descriptor) */
    char descr[DESCR_MAX];  /* the .npy descr of the array (vlen: of the data) */
    size_t base;            /* vlen: bytes of one data element */
} vtype;

/* h5py's boolean: an enum of two members, FALSE 0 and TRUE 1. */
static bool is_bool(hid_t t)
{
    if (H5Tget_nmembers(t) != 2) return false;
    hid_t base = H5Tget_super(t);
    size_t n = base >= 0 ? H5Tget_size(base) : 0;
    bool be = base >= 0 && H5Tget_order(base) == H5T_ORDER_BE;
    if (base >= 0) H5Tclose(base);
    unsigned char f[16] = {0}, v[16] = {0};
    if (n == 0 || n > 8 || H5Tenum_valueof(t, "FALSE", f) < 0 || H5Tenum_valueof(t, "TRUE", v) < 0) return false;
    uint64_t fv = 0, tv = 0;
    for (size_t i = 0; i < n; i++) {
        size_t k = be ? i : n - 1 - i;
        fv = fv << 8 | f[k];
        tv = tv << 8 | v[k];
    }
    return fv == 0 && tv == 1;
}

static bool plain_name(const char *s)
{
    for (; *s; s++)
        if (*s < 0x20 || *s >= 0x7f || *s == '\'' || *s == '\\') return false;
    return true;
}

/* The descr and memory type of a fixed-size type t (no vlen inside);
   false with why. The memory type is t's own bytes except for strings
   (null padding, as h5py reads them) and booleans. */
static bool fixed(hid_t t, char *descr, size_t cap, hid_t *mem, const char **why)
{
    size_t size = H5Tget_size(t);
    H5T_class_t cls = H5Tget_class(t);
    *mem = -1;
    switch (cls) {
    case H5T_INTEGER:
    case H5T_FLOAT:
        /* the standard type of t's size and order, or what h5py converts
           t to (layout.c): never t's own bytes under another's descr */
        *mem = npyg__h5_number_mem(t, descr, cap, why);
        return *mem >= 0;
    case H5T_STRING:
        if (H5Tis_variable_str(t) > 0) break;
        snprintf(descr, cap, "|S%zu", size);
        *mem = H5Tcopy(t);
        return *mem >= 0 && H5Tset_strpad(*mem, H5T_STR_NULLPAD) >= 0;
    case H5T_OPAQUE:
        snprintf(descr, cap, "|V%zu", size);
        *mem = H5Tcopy(t);
        return *mem >= 0;
    case H5T_ENUM: {
        if (is_bool(t)) {
            snprintf(descr, cap, "|b1");
            unsigned char f = 0, v = 1;
            *mem = H5Tenum_create(H5T_NATIVE_UCHAR);
            return *mem >= 0 && H5Tenum_insert(*mem, "FALSE", &f) >= 0 && H5Tenum_insert(*mem, "TRUE", &v) >= 0;
        }
        hid_t base = H5Tget_super(t);
        if (base < 0) break;
        bool ok = fixed(base, descr, cap, mem, why);
        /* the enum is sent as its stored bytes: its base must be one */
        char lw[200];
        ok = ok && npyg__h5_standard_layout(base, lw, sizeof lw);
        if (!ok && !*why) *why = "an enumeration over an integer layout that equals no standard type";
        H5Tclose(base);
        if (*mem >= 0) H5Tclose(*mem);
        *mem = ok ? H5Tcopy(t) : -1;
        return ok && *mem >= 0;
    }
    case H5T_COMPOUND: {
        int n = H5Tget_nmembers(t);
        if (n <= 0) break;
        /* h5py's complex: members r and i whose floats h5py reads as one
           dtype of 4, 8 or 16 bytes, read as the complex of that dtype
           (libhdf5 converts a compound member by member, by name) */
        if (n == 2) {
            char da[16];
            hid_t fa = npyg__h5_complex_float(t, da);
            size_t fs = fa >= 0 ? H5Tget_size(fa) : 0;
            bool cplx = fa >= 0;
            if (cplx) snprintf(descr, cap, "%cc%zu", da[0], 2 * fs);
            if (cplx) *mem = H5Tcreate(H5T_COMPOUND, 2 * fs);
            cplx = cplx && *mem >= 0 && H5Tinsert(*mem, "r", 0, fa) >= 0 && H5Tinsert(*mem, "i", fs, fa) >= 0;
            if (fa >= 0) H5Tclose(fa);
            if (cplx) return true;
            if (*mem >= 0) H5Tclose(*mem);
            *mem = -1;
        }
        /* a structured type: packed members, names numpy can spell */
        size_t o = 0, at = 0;
        *mem = H5Tcreate(H5T_COMPOUND, size);
        if (*mem < 0) break;
        o += (size_t)snprintf(descr + o, cap - o, "[");
        for (int i = 0; i < n; i++) {
            char *name = H5Tget_member_name(t, (unsigned)i);
            hid_t mtype = H5Tget_member_type(t, (unsigned)i), mm = -1;
            char sub[DESCR_MAX];
            bool ok = name && mtype >= 0 && plain_name(name) && H5Tget_member_offset(t, (unsigned)i) == at &&
                      fixed(mtype, sub, sizeof sub, &mm, why);
            /* h5py keeps the stored offsets: a member converted to
               another size is a dtype numpy cannot make */
            if (ok && H5Tget_size(mm) != H5Tget_size(mtype)) {
                ok = false;
                *why = "a compound member whose layout h5py reads at another size";
            }
            if (ok) {
                int k = snprintf(descr + o, cap - o, "%s('%s', %s%s%s)", i ? ", " : "", name,
                                 sub[0] == '[' ? "" : "'", sub, sub[0] == '[' ? "" : "'");
                ok = k > 0 && (size_t)k < cap - o && H5Tinsert(*mem, name, at, mm) >= 0;
                o += ok ? (size_t)k : 0;
                at += H5Tget_size(mtype);
            } else if (!*why) {
                *why = "a compound with padding or a member name numpy's descr cannot spell";
            }
            if (name) H5free_memory(name);
            if (mtype >= 0) H5Tclose(mtype);
            if (mm >= 0) H5Tclose(mm);
            if (!ok) {
                H5Tclose(*mem);
                *mem = -1;
                return false;
            }
        }
        if (at != size || o + 2 > cap) {
            H5Tclose(*mem);
            *mem = -1;
            *why = "a compound with padding at its end";
            return false;
        }
        descr[o++] = ']';
        descr[o] = '\0';
        return true;
    }
    default:
        break;
    }
    if (!*why)
        *why = "a type npyguard does not load (arrays, bitfields, times, references or vlen strings in a compound)";
    return false;
}

static bool classify(emit *e, const char *path, hid_t t, vtype *v)
{
    const char *why = NULL;
    memset(v, 0, sizeof *v);
    v->mem = -1;
    if (H5Tget_class(t) == H5T_STRING && H5Tis_variable_str(t) > 0) {
        v->form = F_STR;
        v->mem = H5Tcopy(H5T_C_S1);
        if (v->mem < 0 || H5Tset_size(v->mem, H5T_VARIABLE) < 0 || H5Tset_cset(v->mem, H5Tget_cset(t)) < 0)
            return failed(e, NPYG_EHDF5_OBJECT, path, "libhdf5 cannot make a string type");
        v->size = sizeof(char *);
        v->base = 1;
        snprintf(v->descr, sizeof v->descr, "|u1");
        return true;
    }
    if (H5Tget_class(t) == H5T_REFERENCE) {
        if (H5Tequal(t, H5T_STD_REF_OBJ) <= 0)
            return failed(e, NPYG_EHDF5_OBJECT, path, "region references are not loaded");
        v->form = F_REF;
        v->mem = H5Tcopy(H5T_STD_REF_OBJ);
        v->size = sizeof(hobj_ref_t);
        v->base = 1;
        snprintf(v->descr, sizeof v->descr, "|u1");
        return v->mem >= 0;
    }
    if (H5Tget_class(t) == H5T_VLEN) {
        hid_t base = H5Tget_super(t), bm = -1;
        bool ok = base >= 0 && H5Tget_class(base) != H5T_COMPOUND &&
                  fixed(base, v->descr, sizeof v->descr, &bm, &why);
        if (base >= 0) H5Tclose(base);
        if (!ok) {
            if (bm >= 0) H5Tclose(bm);
            return failed(e, NPYG_EHDF5_OBJECT, path, "a variable-length sequence of %s",
                          why ? why : "compounds: not loaded");
        }
        v->form = F_VLEN;
        v->base = H5Tget_size(bm);
        v->mem = H5Tvlen_create(bm);
        H5Tclose(bm);
        v->size = sizeof(hvl_t);
        return v->mem >= 0;
    }
    v->form = F_ARRAY;
    if (!fixed(t, v->descr, sizeof v->descr, &v->mem, &why)) return failed(e, NPYG_EHDF5_OBJECT, path, "%s", why);
    v->size = H5Tget_size(v->mem);
    return true;
}

/* ------------------------------------------------------- .npy bytes */

/* A .npy header as numpy's writer spells it: version 1.0, or 2.0 when
   the header needs more than 65535 bytes. */
static bool npy_header(emit *e, const char *path, const char *descr, int ndim, const hsize_t *dims)
{
    static char txt[DESCR_MAX + 64 + NPYG__H5_MAX_DIMS * 24], buf[sizeof txt + 64 + 12];
    bool list = descr[0] == '[';
    size_t o = (size_t)snprintf(txt, sizeof txt, "{'descr': %s%s%s, 'fortran_order': False, 'shape': (",
                                list ? "" : "'", descr, list ? "" : "'");
    for (int i = 0; i < ndim; i++)
        o += (size_t)snprintf(txt + o, sizeof txt - o, i ? ", %llu" : "%llu", (unsigned long long)dims[i]);
    o += (size_t)snprintf(txt + o, sizeof txt - o, "%s), }", ndim == 1 ? "," : "");
    size_t pre = 10, total = (pre + o + 1 + 63) / 64 * 64;
    if (total - pre > 65535) pre = 12, total = (pre + o + 1 + 63) / 64 * 64;
    if (total > sizeof buf) return failed(e, NPYG_EHDF5_OBJECT, path, "a .npy header too long");
    size_t hl = total - pre;
    memcpy(buf, "\x93NUMPY", 6);
    buf[6] = pre == 12 ? 2 : 1;
    buf[7] = 0;
    for (size_t i = 0; i < pre - 8; i++) buf[8 + i] = (char)(hl >> 8 * i & 0xff);
    memcpy(buf + pre, txt, o);
    memset(buf + pre + o, ' ', total - 1 - pre - o);
    buf[total - 1] = '\n';
    return put(e, buf, total);
}

/* ------------------------------------------------------------ pieces */

/* The elements of a dataspace in C order, cut into runs of at most PIECE
   bytes: whole rows of dims[k+1..] along dim k, one index of each dim
   before k. */
typedef struct {
    int nd, k;
    hsize_t dims[NPYG__H5_MAX_DIMS], start[NPYG__H5_MAX_DIMS], count[NPYG__H5_MAX_DIMS];
    hsize_t block;  /* indices of dim k a piece */
    bool first, done;
} slab;

static void slab_init(slab *s, int nd, const hsize_t *dims, size_t elem)
{
    memset(s, 0, sizeof *s);
    s->nd = nd;
    s->first = true;
    memcpy(s->dims, dims, (size_t)nd * sizeof *dims);
    uint64_t inner = elem ? elem : 1;
    int k = nd - 1;
    /* the outermost dim whose rows (the dims after it) fit a piece */
    while (k > 0 && s->dims[k] && s->dims[k] <= PIECE / inner) inner *= s->dims[k--];
    s->k = k;
    s->block = nd ? (PIECE / inner ? PIECE / inner : 1) : 1;
    for (int i = 0; i < nd; i++) s->count[i] = i > k ? dims[i] : 1;
    for (int i = 0; i < nd; i++)
        if (!dims[i]) s->done = true;
}

/* The next run into start/count; false at the end. */
static bool slab_next(slab *s)
{
    if (s->done) return false;
    if (s->nd == 0) {
        s->done = true;
        return true;
    }
    int k = s->k;
    if (!s->first) {
        s->start[k] += s->count[k];
        for (int i = k; i > 0 && s->start[i] >= s->dims[i]; i--) {
            s->start[i] = 0;
            s->start[i - 1]++;
        }
        if (s->start[0] >= s->dims[0]) {
            s->done = true;
            return false;
        }
    }
    s->first = false;
    hsize_t left = s->dims[k] - s->start[k];
    s->count[k] = left < s->block ? left : s->block;
    return true;
}

static uint64_t slab_elems(const slab *s)
{
    uint64_t n = 1;
    for (int i = 0; i < s->nd; i++) n *= s->count[i];
    return n;
}

/* One value's source: a dataset read a run at a time, or an attribute
   read whole. */
typedef struct {
    hid_t obj;
    bool attr;
    int nd;
    hsize_t dims[NPYG__H5_MAX_DIMS];
    uint64_t n;     /* elements */
} source;

/* Reads the run s (for an attribute: everything) into buf; elems set. */
static bool read_run(emit *e, const char *path, const source *src, const slab *s, hid_t mem, void *buf,
                     uint64_t *elems)
{
    if (src->attr) {
        *elems = src->n;
        if (H5Aread(src->obj, mem, buf) < 0) {
            char why[160] = "";
            npyg__h5_last_error(why);
            return failed(e, NPYG_EHDF5_OBJECT, path, "libhdf5 cannot read the attribute: %s", why);
        }
        return true;
    }
    *elems = src->nd ? slab_elems(s) : 1;
    hid_t fs = H5Dget_space(src->obj), ms = -1;
    bool ok = fs >= 0 && (src->nd == 0 || H5Sselect_hyperslab(fs, H5S_SELECT_SET, s->start, NULL, s->count, NULL) >= 0);
    /* the run's own shape in memory: a flat memory space against a file
       selection of another rank makes libhdf5 map element by element */
    if (ok) ms = src->nd ? H5Screate_simple(src->nd, s->count, NULL) : H5Screate(H5S_SCALAR);
    ok = ok && ms >= 0 && npyg__h5_read(src->obj, mem, ms, fs, *elems, buf) >= 0;
    if (ms >= 0) H5Sclose(ms);
    if (fs >= 0) H5Sclose(fs);
    if (!ok) {
        char why[160] = "";
        npyg__h5_last_error(why);
        return failed(e, NPYG_EHDF5_OBJECT, path, "libhdf5 cannot read the dataset: %s", why);
    }
    return true;
}

static void reclaim(hid_t mem, void *buf, uint64_t elems)
{
    hsize_t n = elems;
    hid_t sp = H5Screate_simple(1, &n, NULL);
    if (sp >= 0) H5Dvlen_reclaim(mem, sp, H5P_DEFAULT, buf);
    if (sp >= 0) H5Sclose(sp);
}

/* Element i of a vlen piece: its bytes and length in bytes. */
static bool vlen_item(emit *e, const char *path, const vtype *v, const void *buf, uint64_t i, const void **data,
                      uint64_t *len)
{
    static char name[NPYG__H5_LINE];
    if (v->form == F_STR) {
        const char *s = ((char *const *)buf)[i];
        *data = s ? s : "";
        *len = s ? strlen(s) : 0;
        return true;
    }
    if (v->form == F_VLEN) {
        const hvl_t *h = (const hvl_t *)buf + i;
        *data = h->p;
        *len = (uint64_t)h->len * v->base;
        return h->p || !h->len || failed(e, NPYG_EHDF5_OBJECT, path, "a variable-length element without its data");
    }
    const hobj_ref_t *r = (const hobj_ref_t *)buf + i;
    *data = name;
    *len = 0;
    if (*r == 0) return true;
    size_t known;
    const char *p = npyg__h5_refname(&e->names, e->file, (haddr_t)*r, &known);
    if (p && known < sizeof name) {
        *data = p;
        *len = known;
        return true;
    }
    ssize_t k = H5Rget_name(e->file, H5R_OBJECT, r, name, sizeof name);
    if (k <= 0 || (size_t)k >= sizeof name)
        return failed(e, NPYG_EHDF5_OBJECT, path, "a reference whose path libhdf5 cannot name within %u bytes",
                      NPYG__H5_LINE);
    *len = (uint64_t)k;
    return true;
}

/* Zeros: the rest of a value the record promised, after a failure. */
static void pad(emit *e, uint64_t n)
{
    static const char zero[4096];
    while (n && !e->dead) {
        size_t k = n < sizeof zero ? (size_t)n : sizeof zero;
        put(e, zero, k);
        n -= k;
    }
}

/* The next run of src: for an attribute, its one read. */
static bool more(slab *s, const source *src)
{
    if (!src->attr) return slab_next(s);
    bool first = s->first;
    s->first = false;
    return first;
}

/* The value of src: one .npy, or two (lengths, then data) for vlen forms.
   A failure after the record went out sends the rest of what it promised
   as zeros (consistent lengths and data), so that the parent reads the
   end record that follows, with the failure's code and path, and drops
   everything. */
static bool send_value(emit *e, const char *path, const source *src, const vtype *v)
{
    bool two = v->form != F_ARRAY;
    uint64_t left = src->n * (two ? 8 : v->size), total = 0, elems;
    if (!npy_header(e, path, two ? "<u8" : v->descr, src->nd, src->dims)) return false;
    slab s;
    slab_init(&s, src->nd, src->dims, v->size);
    uint64_t cap = src->attr ? src->n * v->size : (src->nd ? s.block : 1) * v->size;
    for (int i = s.k + 1; !src->attr && i < src->nd; i++) cap *= src->dims[i];
    void *buf = malloc(cap ? cap : 1);
    bool ok = buf || failed(e, NPYG_EHDF5_OBJECT, path, "the child is out of memory");
    /* the array, or the lengths */
    while (ok && more(&s, src)) {
        if (!(ok = read_run(e, path, src, &s, v->mem, buf, &elems))) break;
        if (!two) {
            ok = put(e, buf, elems * v->size);
            left -= elems * v->size;
            continue;
        }
        for (uint64_t i = 0; ok && i < elems; i++) {
            const void *data;
            uint64_t len, le = 0;
            if (!(ok = vlen_item(e, path, v, buf, i, &data, &len))) break;
            for (int b = 0; b < 8; b++) ((unsigned char *)&le)[b] = (unsigned char)(len / v->base >> 8 * b);
            ok = put(e, &le, 8);
            left -= 8;
            total += len;
        }
        if (v->form != F_REF) reclaim(v->mem, buf, elems);
    }
    hsize_t count = two ? total / v->base : 0;
    if (!ok) {
        pad(e, left);
        if (two && npy_header(e, path, v->descr, 1, &count)) pad(e, total);
        free(buf);
        return false;
    }
    if (!two) {
        free(buf);
        return true;
    }
    /* the data, read again */
    left = total;
    ok = npy_header(e, path, v->descr, 1, &count);
    slab_init(&s, src->nd, src->dims, v->size);
    while (ok && more(&s, src)) {
        if (!(ok = read_run(e, path, src, &s, v->mem, buf, &elems))) break;
        for (uint64_t i = 0; ok && i < elems; i++) {
            const void *data;
            uint64_t len;
            if (!(ok = vlen_item(e, path, v, buf, i, &data, &len))) break;
            if (len > left) ok = failed(e, NPYG_EHDF5_OBJECT, path, "variable-length data that changed between two reads");
            else ok = put(e, data, len), left -= len;
        }
        if (v->form != F_REF) reclaim(v->mem, buf, elems);
    }
    if (!ok) pad(e, left);
    free(buf);
    return ok;
}

/* ------------------------------------------------------------ walking */

static const char *cset_name(hid_t t)
{
    if (H5Tget_class(t) != H5T_STRING) return "-";
    return H5Tget_cset(t) == H5T_CSET_UTF8 ? "utf-8" : "ascii";
}

/* Where a dataset's value lies in the file as it is sent: contiguous
   storage of exactly its size, the stored type equal to the value's (no
   conversion). HADDR_UNDEF when it is to be read and sent. The address
   libhdf5 gives counts from the file's start, user block included. */
static haddr_t stored_as_sent(hid_t d, hid_t t, const vtype *v, const source *src)
{
    if (v->form != F_ARRAY || H5Tequal(t, v->mem) <= 0) return HADDR_UNDEF;
    hid_t dcpl = H5Dget_create_plist(d);
    bool plain = dcpl >= 0 && H5Pget_layout(dcpl) == H5D_CONTIGUOUS && H5Pget_external_count(dcpl) == 0;
    if (dcpl >= 0) H5Pclose(dcpl);
    uint64_t bytes;
    if (!plain || !npyg__mul_u64(src->n, v->size, &bytes) || bytes == 0 || H5Dget_storage_size(d) != bytes)
        return HADDR_UNDEF;
    return H5Dget_offset(d);
}

/* The record and value of a dataset (name NULL) or an attribute. */
static bool send_object(emit *e, hid_t obj, bool attr, const char *path, const char *name)
{
    const char *where = path;
    char at[NPYG__H5_LINE];
    if (attr) {
        snprintf(at, sizeof at, "%s@%s", path, name);
        where = at;
    }
    hid_t sp = attr ? H5Aget_space(obj) : H5Dget_space(obj), t = attr ? H5Aget_type(obj) : H5Dget_type(obj);
    source src = {obj, attr, 0, {0}, 1};
    vtype v = {.mem = -1};
    bool ok = sp >= 0 && t >= 0;
    if (!ok) failed(e, NPYG_EHDF5_OBJECT, where, "libhdf5 cannot read its type or dataspace");
    H5S_class_t sc = ok ? H5Sget_simple_extent_type(sp) : H5S_NO_CLASS;
    if (ok && sc == H5S_SIMPLE) {
        src.nd = H5Sget_simple_extent_ndims(sp);
        ok = src.nd >= 0 && src.nd <= (int)NPYG__H5_MAX_DIMS && H5Sget_simple_extent_dims(sp, src.dims, NULL) >= 0;
        for (int i = 0; ok && i < src.nd; i++) src.n *= src.dims[i];
        if (!ok) failed(e, NPYG_EHDF5_OBJECT, where, "libhdf5 cannot read its dataspace");
    }
    ok = ok && classify(e, where, t, &v);
    if (ok) {
        const char *form = form_names[v.form], *space = sc == H5S_NULL ? "null" : "simple";
        haddr_t stored = !attr && sc == H5S_SIMPLE ? stored_as_sent(obj, t, &v, &src) : HADDR_UNDEF;
        char at_space[32];
        if (stored != HADDR_UNDEF) {
            snprintf(at_space, sizeof at_space, "at:%llu", (unsigned long long)stored);
            space = at_space;
        }
        ok = attr ? line(e, where, 'A', 5, path, name, form, cset_name(t), space)
                  : line(e, where, 'D', 4, path, form, cset_name(t), space);
        if (ok && sc == H5S_NULL) {
            hsize_t zero = 0;
            ok = npy_header(e, where, v.form == F_ARRAY ? v.descr : "|u1", 1, &zero);
        } else if (ok && stored != HADDR_UNDEF) {
            ok = npy_header(e, where, v.descr, src.nd, src.dims);
        } else if (ok) {
            ok = send_value(e, where, &src, &v);
        }
    }
    if (v.mem >= 0) H5Tclose(v.mem);
    if (t >= 0) H5Tclose(t);
    if (sp >= 0) H5Sclose(sp);
    return ok;
}

typedef struct {
    emit *e;
    const char *path;
} at_ctx;

static herr_t attr_cb(hid_t loc, const char *name, const H5A_info_t *info, void *data)
{
    (void)info;
    at_ctx *c = data;
    hid_t a = H5Aopen(loc, name, H5P_DEFAULT);
    if (a < 0) return failed(c->e, NPYG_EHDF5_OBJECT, c->path, "libhdf5 cannot open attribute %s", name), -1;
    bool ok = send_object(c->e, a, true, c->path, name);
    H5Aclose(a);
    return ok ? 0 : -1;
}

static bool send_attrs(emit *e, hid_t obj, const char *path)
{
    at_ctx c = {e, path};
    hsize_t idx = 0;
    if (H5Aiterate2(obj, H5_INDEX_NAME, H5_ITER_INC, &idx, attr_cb, &c) < 0)
        return failed(e, NPYG_EHDF5_OBJECT, path, "libhdf5 cannot list the attributes");
    return true;
}

static bool send_group(emit *e, hid_t g, const char *path);

typedef struct {
    emit *e;
    const char *dir;
} link_ctx;

static herr_t link_cb(hid_t g, const char *name, const H5L_info_t *li, void *data)
{
    link_ctx *c = data;
    emit *e = c->e;
    char path[NPYG__H5_LINE];
    if (snprintf(path, sizeof path, "%s/%s", strcmp(c->dir, "/") ? c->dir : "", name) >= (int)sizeof path)
        return failed(e, NPYG_EHDF5_OBJECT, c->dir, "a path too long to load"), -1;
    if (li->type == H5L_TYPE_SOFT) {
        char target[NPYG__H5_LINE];
        if (li->u.val_size == 0 || li->u.val_size > sizeof target ||
            H5Lget_val(g, name, target, sizeof target, H5P_DEFAULT) < 0)
            return failed(e, NPYG_EHDF5_OBJECT, path, "libhdf5 cannot read the soft link"), -1;
        target[li->u.val_size - 1] = '\0';
        return line(e, path, 'L', 2, path, target) ? 0 : -1;
    }
    if (li->type != H5L_TYPE_HARD) return failed(e, NPYG_EHDF5_OBJECT, path, "a link that is not loaded"), -1;
    hid_t o = H5Oopen(g, name, H5P_DEFAULT);
    if (o < 0) return failed(e, NPYG_EHDF5_OBJECT, path, "libhdf5 cannot open the object"), -1;
    bool ok;
    switch (H5Iget_type(o)) {
    case H5I_GROUP:
        ok = send_group(e, o, path);
        break;
    case H5I_DATASET:
        ok = send_object(e, o, false, path, NULL) && send_attrs(e, o, path);
        break;
    default:
        ok = failed(e, NPYG_EHDF5_OBJECT, path, "a named datatype: not loaded");
    }
    H5Oclose(o);
    return ok ? 0 : -1;
}

static bool send_group(emit *e, hid_t g, const char *path)
{
    if (!line(e, path, 'G', 1, path) || !send_attrs(e, g, path)) return false;
    link_ctx c = {e, path};
    hsize_t idx = 0;
    if (H5Literate(g, H5_INDEX_NAME, H5_ITER_INC, &idx, link_cb, &c) < 0)
        return failed(e, NPYG_EHDF5_OBJECT, path, "libhdf5 cannot list the group");
    return true;
}

int npyg__h5_emit(hid_t file, int out, char *msg, size_t size)
{
    emit e = {out, file, false, 0, "", {0}};
    hid_t root = H5Gopen2(file, "/", H5P_DEFAULT);
    bool ok = root >= 0 && send_group(&e, root, "/");
    if (root >= 0) H5Gclose(root);
    else failed(&e, NPYG_EHDF5_OBJECT, "/", "libhdf5 cannot open the root group");
    if (!ok && !e.code)
        failed(&e, e.dead ? NPYG_EHDF5_SANDBOX : NPYG_EHDF5_OBJECT, "/", e.dead ? "the record pipe broke" : "the load stopped");
    npyg__h5_refnames_free(&e.names);
    if (ok) return 0;
    snprintf(msg, size, "%s", e.msg);
    return e.code;
}
