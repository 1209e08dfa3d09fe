/* SPDX-License-Identifier: BSD-3-Clause */
/* The child: libhdf5 walks the file and every finding goes up the pipe.
 *
 * Rules the walk keeps, so that libhdf5 never reaches outside the file:
 * - a link is looked at (H5Lget_info, H5Lget_val) before anything goes
 *   through it, and only hard links are ever traversed, one name at a time
 *   from an open group; soft links are resolved by hand the same way;
 * - raw data is read only for reference datasets, and only when they have
 *   no external storage, no virtual layout and no filter that is not built
 *   in; no other dataset's data is read at all;
 * - plugin loading is off and the seccomp filter (sandbox.c) is in place
 *   before the first object is read.
 *
 * The walk is breadth-first over groups with an explicit queue, so the
 * nesting limit bounds nothing on the C stack. Memory is plain malloc: the
 * child's memory is capped by RLIMIT_AS and RLIMIT_DATA (sandbox.c) instead
 * of the context's allocator, and its tables are bounded by max_objects.
 */
#define _GNU_SOURCE
#include "h5internal.h"

#include "h5storage.h"
#include "h5walk.h"
#include "h5walker.h"

#include <errno.h>
#include <limits.h>
#include <malloc.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ------------------------------------------------------- object table */

static bool grow(void **p, uint32_t *cap, uint32_t need, size_t elem)
{
    if (need <= *cap) return true;
    uint32_t n = *cap ? *cap : 64;
    while (n < need) {
        if (n > UINT32_MAX / 2) return false;
        n *= 2;
    }
    void *q = realloc(*p, (size_t)n * elem);
    if (!q) return false;
    *p = q;
    *cap = n;
    return true;
}

static uint32_t hash_addr(haddr_t a, uint32_t cap)
{
    uint64_t x = (uint64_t)a * UINT64_C(0x9E3779B97F4A7C15);
    return (uint32_t)(x >> 32) & (cap - 1);
}

static bool rehash(walk *w, uint32_t cap)
{
    uint32_t *h = calloc(cap, sizeof *h);
    if (!h) return false;
    for (uint32_t i = 0; i < w->nnodes; i++) {
        uint32_t k = hash_addr(w->nodes[i].addr, cap);
        while (h[k]) k = (k + 1) & (cap - 1);
        h[k] = i + 1;
    }
    free(w->hash);
    w->hash = h;
    w->hashcap = cap;
    return true;
}

/* The node of addr, or UINT32_MAX. */
static uint32_t find_node(const walk *w, haddr_t addr)
{
    if (!w->hashcap) return UINT32_MAX;
    for (uint32_t k = hash_addr(addr, w->hashcap); w->hash[k]; k = (k + 1) & (w->hashcap - 1))
        if (w->nodes[w->hash[k] - 1].addr == addr) return w->hash[k] - 1;
    return UINT32_MAX;
}

static uint32_t add_node(walk *w, haddr_t addr, const char *path, bool group)
{
    if (!grow((void **)&w->nodes, &w->capnodes, w->nnodes + 1, sizeof(node))) return UINT32_MAX;
    if ((uint64_t)(w->nnodes + 1) * 2 > w->hashcap &&
        !rehash(w, w->hashcap ? w->hashcap * 2 : 256))
        return UINT32_MAX;
    char *copy = strdup(path);
    if (!copy) return UINT32_MAX;
    uint32_t i = w->nnodes++;
    w->nodes[i] = (node){addr, copy, group, 0};
    uint32_t k = hash_addr(addr, w->hashcap);
    while (w->hash[k]) k = (k + 1) & (w->hashcap - 1);
    w->hash[k] = i + 1;
    return i;
}

static bool add_edge(walk *w, uint32_t from, uint32_t to, bool ref, bool reported)
{
    if (!grow((void **)&w->edges, &w->capedges, w->nedges + 1, sizeof(edge))) return false;
    w->edges[w->nedges++] = (edge){from, to, ref, reported};
    return true;
}

/* Counts one more link, attribute or reference; false once past the limit
   (reported once, at path). */
static bool visit(walk *w, const char *path)
{
    if (w->over) return false;
    if (++w->visits > w->p->max_objects) {
        char msg[128];
        snprintf(msg, sizeof msg, "more than max_objects (%u) links, attributes and references; the rest is not scanned",
                 w->p->max_objects);
        npyg__h5_rec_object(&w->ch, NPYG_ELIMIT_OBJECTS, 0, "file", "", -1, NULL, path, msg);
        w->over = true;
        w->hazards++;
        return false;
    }
    return true;
}

static void join(char *out, size_t size, const char *dir, const char *name)
{
    snprintf(out, size, "%s%s%s", dir, strcmp(dir, "/") == 0 ? "" : "/", name);
}

/* ------------------------------------------------------- type names */

static void type_name(hid_t t, char *out, size_t size)
{
    H5T_class_t cls = H5Tget_class(t);
    size_t sz = H5Tget_size(t);
    switch (cls) {
    case H5T_INTEGER:
        snprintf(out, size, "%sint%zu", H5Tget_sign(t) == H5T_SGN_NONE ? "u" : "", sz * 8);
        break;
    case H5T_FLOAT:
        snprintf(out, size, "float%zu", sz * 8);
        break;
    case H5T_STRING:
        if (H5Tis_variable_str(t) > 0) snprintf(out, size, "vlen str");
        else snprintf(out, size, "bytes%zu", sz);
        break;
    case H5T_REFERENCE:
        snprintf(out, size, H5Tequal(t, H5T_STD_REF_DSETREG) > 0 ? "region reference" : "object reference");
        break;
    case H5T_ENUM: {
        hid_t base = H5Tget_super(t);
        int n = H5Tget_nmembers(t);
        /* h5py's bool: an enum of int8 with FALSE=0, TRUE=1 */
        if (n == 2 && base >= 0 && H5Tget_size(base) == 1) snprintf(out, size, "bool");
        else snprintf(out, size, "enum");
        if (base >= 0) H5Tclose(base);
        break;
    }
    case H5T_COMPOUND: {
        int n = H5Tget_nmembers(t);
        bool cplx = false;
        if (n == 2) {
            hid_t a = H5Tget_member_type(t, 0), b = H5Tget_member_type(t, 1);
            /* h5py's complex: fields named r and i (hdf5storage's MATLAB
               files name them real and imag: h5py reads those as records) */
            char *na = H5Tget_member_name(t, 0), *nb = H5Tget_member_name(t, 1);
            cplx = a >= 0 && b >= 0 && H5Tget_class(a) == H5T_FLOAT && H5Tget_class(b) == H5T_FLOAT &&
                   H5Tget_size(a) == H5Tget_size(b) && H5Tget_size(a) * 2 == sz && na && nb &&
                   !strcmp(na, "r") && !strcmp(nb, "i");
            if (na) H5free_memory(na);
            if (nb) H5free_memory(nb);
            if (a >= 0) H5Tclose(a);
            if (b >= 0) H5Tclose(b);
        }
        if (cplx) snprintf(out, size, "complex%zu", sz * 8);
        else snprintf(out, size, "compound%zu", sz);
        break;
    }
    case H5T_VLEN: snprintf(out, size, "vlen"); break;
    case H5T_ARRAY: snprintf(out, size, "array"); break;
    case H5T_OPAQUE: snprintf(out, size, "opaque%zu", sz); break;
    case H5T_BITFIELD: snprintf(out, size, "bitfield%zu", sz * 8); break;
    case H5T_TIME: snprintf(out, size, "time"); break;
    default: snprintf(out, size, "unknown"); break;
    }
}

/* ------------------------------------------------- attributes */

typedef struct {
    walk *w;
    const char *path;
    uint32_t node;
    sattrs *s;
} attr_ctx;

static void queue_refs(walk *w, hid_t obj, bool attr, hid_t t, hssize_t np, const char *path, uint32_t at);

#define OVERLAP                                                                                     \
    "a compound member whose float h5py reads at a larger size: h5py's dtype has overlapping fields " \
    "and reading it corrupts h5py's memory"

/* A number layout no writer of the profile produces (h5py, hdf5storage
   and MATLAB write standard types only): a storage-format problem, so
   the strict profile refuses it. name: the attribute's, or NULL. */
static void layout_problem(sattrs *s, hid_t t, const char *name)
{
    char why[200];
    if (s->problem[0] || npyg__h5_standard_layout(t, why, sizeof why)) return;
    if (name) snprintf(s->problem, sizeof s->problem, "attribute %.64s: %s", name, why);
    else snprintf(s->problem, sizeof s->problem, "%s", why);
}

static herr_t attr_cb(hid_t loc, const char *name, const H5A_info_t *info, void *data)
{
    (void)info;
    attr_ctx *ac = data;
    walk *w = ac->w;
    char apath[NPYG__H5_PATH_MAX + 128];
    snprintf(apath, sizeof apath, "%s@%s", ac->path, name);
    if (!visit(w, apath)) return 1;
    hid_t a = H5Aopen(loc, name, H5P_DEFAULT);
    if (a < 0) {
        npyg__h5w_failed(w, "attribute", apath, "open the attribute");
        return 0;
    }
    hid_t t = H5Aget_type(a), sp = H5Aget_space(a);
    hssize_t np = sp >= 0 ? H5Sget_simple_extent_npoints(sp) : -1;
    size_t tsz = t >= 0 ? H5Tget_size(t) : 0;
    uint64_t bytes;
    if (np < 0 || t < 0) {
        npyg__h5w_hazard(w, NPYG_EHDF5_OBJECT, "attribute", apath, "libhdf5 cannot read the attribute's type or space");
    } else if (!npyg__mul_u64((uint64_t)np, tsz, &bytes) || bytes > w->p->max_payload) {
        npyg__h5w_hazard(w, NPYG_ELIMIT_PAYLOAD, "attribute", apath,
               "attribute declares %llu elements of %zu bytes, more than max_payload_bytes (%llu)",
               (unsigned long long)np, tsz, (unsigned long long)w->p->max_payload);
    } else if (npyg__h5_overlapping_fields(t)) {
        npyg__h5w_hazard(w, NPYG_EHDF5_OBJECT, "attribute", apath, "%s", OVERLAP);
    } else if (npyg__h5w_vlen_ok(w, a, true, t, np, "attribute", apath)) {
        /* Only small attributes are read: hdf5storage's are a few bytes. */
        npyg__h5s_take(ac->s, a, name, bytes <= 4096);
        layout_problem(ac->s, t, name);
        queue_refs(w, a, true, t, np, apath, ac->node);
    }
    if (t >= 0) H5Tclose(t);
    if (sp >= 0) H5Sclose(sp);
    H5Aclose(a);
    return w->over ? 1 : 0;
}

/* Scans an object's attributes; fills s. */
static void scan_attrs(walk *w, hid_t obj, const char *path, uint32_t at, sattrs *s)
{
    npyg__h5s_init(s);
    attr_ctx ac = {w, path, at, s};
    hsize_t idx = 0;
    if (H5Aiterate2(obj, H5_INDEX_NAME, H5_ITER_INC, &idx, attr_cb, &ac) < 0 && !w->over) {
        npyg__h5w_failed(w, "attribute", path, "list the attributes");
    }
}

/* Reports the object; a storage-format problem is a warning, or an error
   under the strict profile. */
static void report(walk *w, const char *kind, const char *type, int ndim, const hsize_t *dims,
                   const char *path, const sattrs *s)
{
    if (s && s->problem[0]) {
        if (w->p->strict) {
            npyg__h5_rec_object(&w->ch, NPYG_EHDF5_FORMAT, 0, kind, type, ndim, dims, path, s->problem);
            w->hazards++;
        } else {
            npyg__h5_rec_object(&w->ch, 0, NPYG_HW_FORMAT, kind, type, ndim, dims, path, s->problem);
        }
        return;
    }
    npyg__h5_rec_object(&w->ch, 0, 0, kind, type, ndim, dims, path, "");
}

/* ------------------------------------------------------------ walking */

static void enqueue(walk *w, hid_t gid, uint32_t n, uint32_t depth)
{
    if (!grow((void **)&w->queue, &w->qcap, w->qtail + 1, sizeof(qitem))) {
        H5Gclose(gid);
        npyg__h5w_hazard(w, NPYG_EHDF5_SANDBOX, "group", w->nodes[n].path, "out of memory in the child");
        return;
    }
    w->queue[w->qtail++] = (qitem){gid, n, depth};
}

static void scan_object(walk *w, hid_t oid, const char *path, const char *parent, uint32_t n,
                        uint32_t depth);

/* Queues one pending read of references; takes a reference to obj. */
static void push_refs(walk *w, hid_t obj, bool attr, bool region, const char *member, hssize_t np,
                      const char *path, uint32_t at)
{
    char *p = strdup(path), *m = member ? strdup(member) : NULL;
    if (!p || (member && !m) || !grow((void **)&w->refs, &w->caprefs, w->nrefs + 1, sizeof(pending))) {
        free(p);
        free(m);
        npyg__h5w_hazard(w, NPYG_EHDF5_SANDBOX, attr ? "attribute" : "dataset", path, "out of memory in the child");
        return;
    }
    H5Iinc_ref(obj);
    w->refs[w->nrefs++] = (pending){obj, attr, region, m, p, at, np};
}

/* References wherever a reader meets them: elements that are references,
   and reference members of compound elements, in datasets and in
   attributes alike. Deeper nests (arrays of references, compounds in
   compounds) are refused rather than left unvisited. */
static void queue_refs(walk *w, hid_t obj, bool attr, hid_t t, hssize_t np, const char *path, uint32_t at)
{
    if (w->over || np <= 0 || H5Tdetect_class(t, H5T_REFERENCE) <= 0) return;
    const char *kind = attr ? "attribute" : "dataset";
    H5T_class_t cls = H5Tget_class(t);
    if (cls == H5T_REFERENCE) {
        push_refs(w, obj, attr, H5Tequal(t, H5T_STD_REF_DSETREG) > 0, NULL, np, path, at);
        return;
    }
    int n = cls == H5T_COMPOUND ? H5Tget_nmembers(t) : -1;
    for (int i = 0; i < n; i++) {
        hid_t mt = H5Tget_member_type(t, (unsigned)i);
        H5T_class_t mc = mt >= 0 ? H5Tget_class(mt) : H5T_NO_CLASS;
        if (mc == H5T_REFERENCE) {
            char *name = H5Tget_member_name(t, (unsigned)i);
            if (name) push_refs(w, obj, attr, H5Tequal(mt, H5T_STD_REF_DSETREG) > 0, name, np, path, at);
            else npyg__h5w_failed(w, kind, path, "read a compound member's name");
            if (name) H5free_memory(name);
        } else if (mt >= 0 && H5Tdetect_class(mt, H5T_REFERENCE) > 0) {
            n = -1;
        }
        if (mt >= 0) H5Tclose(mt);
    }
    if (n < 0)
        npyg__h5w_hazard(w, NPYG_EHDF5_OBJECT, kind, path,
               "references nested in arrays or inner compounds: npyguard does not follow them, a reader may");
}

/* Follows one pending read of references (only queued when the object's
   storage is all in this file). */
static void follow_refs(walk *w, const pending *r)
{
    const char *kind = r->attr ? "attribute" : "dataset";
    const char *path = r->path;
    size_t esz = r->region ? sizeof(hdset_reg_ref_t) : sizeof(hobj_ref_t);
    hid_t rt = r->region ? H5T_STD_REF_DSETREG : H5T_STD_REF_OBJ;
    if ((uint64_t)r->np > w->p->max_objects) {
        w->visits += (uint64_t)r->np; /* past the limit: visit() reports it */
        visit(w, path);
        return;
    }
    hid_t mt = rt;
    if (r->member) {
        mt = H5Tcreate(H5T_COMPOUND, esz);
        if (mt < 0 || H5Tinsert(mt, r->member, 0, rt) < 0) {
            npyg__h5w_failed(w, kind, path, "make a type for the reference member");
            if (mt >= 0) H5Tclose(mt);
            return;
        }
    }
    unsigned char *buf = malloc((size_t)r->np * esz);
    herr_t rd = -1;
    if (buf)
        rd = r->attr ? H5Aread(r->obj, mt, buf) : npyg__h5_read(r->obj, mt, H5S_ALL, H5S_ALL, (uint64_t)r->np, buf);
    if (mt != rt) H5Tclose(mt);
    if (!buf) {
        npyg__h5w_hazard(w, NPYG_EHDF5_SANDBOX, kind, path, "out of memory in the child");
        return;
    }
    if (rd < 0) {
        npyg__h5w_failed(w, kind, path, "read the references");
        free(buf);
        return;
    }
    int dangling = 0;
    for (hssize_t i = 0; i < r->np && !w->over; i++) {
        const void *ref = buf + (size_t)i * esz;
        char rpath[NPYG__H5_PATH_MAX + 64];
        snprintf(rpath, sizeof rpath, "%s[%lld]", path, (long long)i);
        if (!visit(w, rpath)) break;
        static const unsigned char zero[sizeof(hdset_reg_ref_t)];
        if (!memcmp(ref, zero, esz)) {
            if (!dangling++)
                npyg__h5w_hazard(w, NPYG_EHDF5_REFDANGLE, kind, path, "element %lld is a null reference", (long long)i);
            continue;
        }
        hid_t o = H5Rdereference2(w->file, H5P_DEFAULT, r->region ? H5R_DATASET_REGION : H5R_OBJECT, ref);
        H5O_info_t oi;
        if (o < 0 || H5Oget_info2(o, &oi, H5O_INFO_BASIC) < 0) {
            if (!dangling++)
                npyg__h5w_hazard(w, NPYG_EHDF5_REFDANGLE, kind, path,
                       "element %lld references no object in this file", (long long)i);
            if (o >= 0) H5Oclose(o);
            continue;
        }
        if (r->region) {
            hid_t sp = H5Rget_region(w->file, H5R_DATASET_REGION, ref);
            if (sp < 0 && !dangling++)
                npyg__h5w_hazard(w, NPYG_EHDF5_REFDANGLE, kind, path,
                       "element %lld references a region libhdf5 cannot read", (long long)i);
            if (sp >= 0) H5Sclose(sp);
        }
        uint32_t to = find_node(w, oi.addr);
        if (to == UINT32_MAX) {
            /* An object no link names: scan it where the reference finds it. */
            to = add_node(w, oi.addr, rpath, oi.type == H5O_TYPE_GROUP);
            if (to == UINT32_MAX) {
                H5Oclose(o);
                npyg__h5w_hazard(w, NPYG_EHDF5_SANDBOX, kind, path, "out of memory in the child");
                break;
            }
            add_edge(w, r->node, to, true, false);
            scan_object(w, o, rpath, NULL, to, 1);
            continue; /* scan_object took o */
        }
        add_edge(w, r->node, to, true, false);
        H5Oclose(o);
    }
    free(buf);
}

/* ------------------------------------------------ what readers make */

/* The bytes of one element of the numpy dtype hdf5storage names (its
   Python.numpy.UnderlyingType: 'float64', 'bytes80', 'str96', 'bool'). */
static uint64_t underlying_itemsize(const char *u)
{
    const char *d = u;
    while (*d && (*d < '0' || *d > '9')) d++;
    unsigned long long bits = *d ? strtoull(d, NULL, 10) : 0;
    if (bits >= 8 && bits <= (1u << 20)) return bits / 8;
    if (!strncmp(u, "str", 3)) return 4;
    if (!strncmp(u, "bytes", 5) || !strcmp(u, "bool")) return 1;
    return 8; /* object, and what no writer names: a pointer each */
}

/* The same for a MATLAB_class (hdf5storage's table of MATLAB classes). */
static uint64_t matlab_itemsize(const char *c)
{
    static const struct { const char *name; uint8_t size; } t[] = {
        {"logical", 1}, {"int8", 1}, {"uint8", 1}, {"char", 2}, {"int16", 2}, {"uint16", 2},
        {"int32", 4}, {"uint32", 4}, {"single", 4}, {"int64", 8}, {"uint64", 8}, {"double", 8}};
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        if (!strcmp(c, t[i].name)) return t[i].size;
    return 8;
}

/* What hdf5storage allocates for a value marked empty: np.zeros of the
   shape in Python.Shape (Python.Empty) or in the dataset's own integers
   (MATLAB_empty), whatever the stored data holds. 0 when not marked. */
static uint64_t empty_bytes(hid_t d, hid_t t, hssize_t np, const sattrs *s, bool in_file)
{
    uint64_t most = 0, n, b;
    if (s->python_empty == 1 && s->shape_n >= 0) {
        n = 1;
        for (int i = 0; i < s->shape_n; i++)
            if (!npyg__mul_u64(n, s->shape[i], &n)) return UINT64_MAX;
        if (!npyg__mul_u64(n, underlying_itemsize(s->has_underlying ? s->underlying : ""), &b)) return UINT64_MAX;
        most = b;
    }
    if (s->matlab_empty == 1 && in_file && H5Tget_class(t) == H5T_INTEGER && np >= 1 &&
        np <= (hssize_t)NPYG__H5_MAX_DIMS) {
        uint64_t v[NPYG__H5_MAX_DIMS];
        if (npyg__h5_read(d, H5T_NATIVE_UINT64, H5S_ALL, H5S_ALL, (uint64_t)np, v) < 0) return 0;
        n = 1;
        for (hssize_t i = 0; i < np; i++)
            if (!npyg__mul_u64(n, v[i], &n)) return UINT64_MAX;
        if (!npyg__mul_u64(n, matlab_itemsize(s->has_matlab_class ? s->matlab_class : ""), &b)) return UINT64_MAX;
        if (b > most) most = b;
    }
    return most;
}

static void scan_dataset(walk *w, hid_t d, const char *path, const char *parent, uint32_t n)
{
    char tname[64] = "unknown";
    hsize_t dims[NPYG__H5_MAX_DIMS];
    int ndim = -1;
    hid_t t = H5Dget_type(d), sp = H5Dget_space(d), dcpl = H5Dget_create_plist(d);
    if (t < 0 || sp < 0 || dcpl < 0) {
        npyg__h5w_failed(w, "dataset", path, "read the dataset's type, space or layout");
        goto done;
    }
    type_name(t, tname, sizeof tname);
    ndim = H5Sget_simple_extent_ndims(sp);
    if (ndim < 0 || ndim > (int)NPYG__H5_MAX_DIMS) ndim = -1;
    else H5Sget_simple_extent_dims(sp, dims, NULL);
    bool in_file = true;
    int before = w->hazards;

    H5D_layout_t layout = H5Pget_layout(dcpl);
    if (layout == H5D_VIRTUAL) {
        size_t count = 0;
        char fname[256] = "?", dname[256] = "?";
        H5Pget_virtual_count(dcpl, &count);
        if (count > 0) {
            H5Pget_virtual_filename(dcpl, 0, fname, sizeof fname);
            H5Pget_virtual_dsetname(dcpl, 0, dname, sizeof dname);
        }
        npyg__h5w_dhazard(w, NPYG_EHDF5_VIRTUAL, tname, ndim, dims, path,
               "virtual dataset: %zu mapping(s), the first from '%s:%s'; reading it opens that file",
               count, fname, dname);
        in_file = false;
    }
    int next = H5Pget_external_count(dcpl);
    if (next > 0) {
        char ename[256] = "?";
        off_t eoff = 0;
        hsize_t esize = 0;
        H5Pget_external(dcpl, 0, sizeof ename, ename, &eoff, &esize);
        npyg__h5w_dhazard(w, NPYG_EHDF5_EXTFILE, tname, ndim, dims, path,
               "raw data stored in %d external file(s), the first '%s': reading it opens that file",
               next, ename);
        in_file = false;
    }
    int nf = H5Pget_nfilters(dcpl);
    for (int i = 0; i < nf; i++) {
        unsigned flags = 0, cd[8];
        size_t ncd = 8;
        char fname[128] = "";
        H5Z_filter_t id = H5Pget_filter2(dcpl, (unsigned)i, &flags, &ncd, cd, sizeof fname, fname, NULL);
        /* Built into libhdf5: deflate, shuffle, fletcher32, szip, nbit,
           scaleoffset. Any other id makes a reader search for a plugin. */
        bool builtin = id >= H5Z_FILTER_DEFLATE && id <= H5Z_FILTER_SCALEOFFSET;
        if (!builtin) {
            npyg__h5w_dhazard(w, NPYG_EHDF5_FILTER, tname, ndim, dims, path,
                   "filter %d ('%s') is not built into libhdf5: reading it loads a plugin", (int)id, fname);
            in_file = false;
        } else if (H5Zfilter_avail(id) <= 0) {
            npyg__h5w_dhazard(w, NPYG_EHDF5_FILTER, tname, ndim, dims, path,
                   "filter %d ('%s') is not available in this libhdf5", (int)id, fname);
            in_file = false;
        }
    }
    hssize_t np = H5Sget_simple_extent_npoints(sp);
    size_t tsz = H5Tget_size(t);
    uint64_t bytes = 0;
    if (np < 0 || !npyg__mul_u64((uint64_t)np, tsz, &bytes) || bytes > w->p->max_payload) {
        npyg__h5w_dhazard(w, NPYG_ELIMIT_PAYLOAD, tname, ndim, dims, path,
               "dataset declares %llu elements of %zu bytes, more than max_payload_bytes (%llu)",
               (unsigned long long)np, tsz, (unsigned long long)w->p->max_payload);
        in_file = false;
    }

    if (npyg__h5_overlapping_fields(t)) {
        npyg__h5w_dhazard(w, NPYG_EHDF5_OBJECT, tname, ndim, dims, path, "%s", OVERLAP);
        in_file = false;
    }

    w->nodes[n].bytes = bytes;
    sattrs s;
    scan_attrs(w, d, path, n, &s);
    npyg__h5s_check(&s, true, tname, tsz, ndim, dims, parent);
    layout_problem(&s, t, NULL);
    if (in_file && !npyg__h5w_vlen_ok(w, d, false, t, np, "dataset", path)) in_file = false;
    if (in_file) {
        uint64_t stored = H5Dget_storage_size(d), zeros = empty_bytes(d, t, np, &s, in_file);
        npyg__h5w_inflate(w, tname, ndim, dims, path, "a reader makes", bytes, stored);
        if (zeros > w->p->max_payload)
            npyg__h5w_dhazard(w, NPYG_ELIMIT_PAYLOAD, tname, ndim, dims, path,
                    "marked empty: hdf5storage reads it as np.zeros of %llu bytes, more than max_payload_bytes (%llu)",
                    (unsigned long long)zeros, (unsigned long long)w->p->max_payload);
        else
            npyg__h5w_inflate(w, tname, ndim, dims, path, "marked empty: hdf5storage makes np.zeros of", zeros, stored);
    }
    if (w->hazards == before) report(w, "dataset", tname, ndim, dims, path, &s);
    if (in_file) queue_refs(w, d, false, t, np, path, n);
done:
    if (t >= 0) H5Tclose(t);
    if (sp >= 0) H5Sclose(sp);
    if (dcpl >= 0) H5Pclose(dcpl);
}

/* Takes oid (closes it or queues it). */
static void scan_object(walk *w, hid_t oid, const char *path, const char *parent, uint32_t n,
                        uint32_t depth)
{
    H5I_type_t it = H5Iget_type(oid);
    if (it == H5I_GROUP) {
        if (depth > w->p->max_nesting) {
            npyg__h5w_hazard(w, NPYG_ELIMIT_NESTING, "group", path,
                   "groups nested deeper than max_nesting (%u); below this is not scanned", w->p->max_nesting);
            H5Gclose(oid);
            return;
        }
        sattrs s;
        scan_attrs(w, oid, path, n, &s);
        npyg__h5s_check(&s, false, "group", 0, -1, NULL, parent);
        report(w, "group", "group", -1, NULL, path, &s);
        enqueue(w, oid, n, depth);
        return;
    }
    if (it == H5I_DATASET) {
        scan_dataset(w, oid, path, parent, n);
    } else {
        sattrs s;
        int before = w->hazards;
        scan_attrs(w, oid, path, n, &s);
        if (w->hazards == before) npyg__h5_rec_object(&w->ch, 0, 0, "datatype", "named datatype", -1, NULL, path, "");
    }
    H5Oclose(oid);
}

/* Resolves a soft link's target without letting libhdf5 follow anything
   but hard links: one name at a time from an open group. 0 when it names
   an object of this file; else a reason in why. *hops counts every soft
   link followed on the way, as libhdf5 counts them against its limit of
   nested links (H5Pset_nlinks, 16 by default): it follows 16, not 17. */
#define SOFT_HOPS_MAX 16
static int resolve_soft(walk *w, const char *base, const char *target, int *hops, char *why, size_t wsize)
{
    if (++*hops > SOFT_HOPS_MAX) {
        snprintf(why, wsize, "more than %d soft links followed in a row (a loop?): libhdf5 stops there",
                 SOFT_HOPS_MAX);
        return -1;
    }
    char full[2 * NPYG__H5_PATH_MAX];
    if (target[0] == '/') snprintf(full, sizeof full, "%s", target);
    else join(full, sizeof full, base, target);
    hid_t cur = H5Gopen2(w->file, "/", H5P_DEFAULT);
    char sofar[2 * NPYG__H5_PATH_MAX] = "/";
    char *save = NULL;
    int rc = 0;
    for (char *name = strtok_r(full, "/", &save); name && cur >= 0; name = strtok_r(NULL, "/", &save)) {
        if (!strcmp(name, ".")) continue;
        H5L_info_t li;
        char here[2 * NPYG__H5_PATH_MAX];
        join(here, sizeof here, sofar, name);
        if (H5Iget_type(cur) != H5I_GROUP || H5Lexists(cur, name, H5P_DEFAULT) <= 0 ||
            H5Lget_info(cur, name, &li, H5P_DEFAULT) < 0) {
            snprintf(why, wsize, "'%.200s' does not exist", here);
            rc = -1;
            break;
        }
        if (li.type == H5L_TYPE_EXTERNAL || li.type >= H5L_TYPE_UD_MIN) {
            snprintf(why, wsize, "'%.200s' is an external or user-defined link: the target is outside this file", here);
            rc = -1;
            break;
        }
        hid_t next;
        if (li.type == H5L_TYPE_SOFT) {
            char val[NPYG__H5_PATH_MAX];
            if (li.u.val_size > sizeof val || H5Lget_val(cur, name, val, sizeof val, H5P_DEFAULT) < 0) {
                snprintf(why, wsize, "'%.200s' is a soft link libhdf5 cannot read", here);
                rc = -1;
                break;
            }
            val[sizeof val - 1] = '\0';
            rc = resolve_soft(w, sofar, val, hops, why, wsize);
            if (rc) break;
            /* the resolved object is a plain object of this file: go on from it */
            char tmp[2 * NPYG__H5_PATH_MAX];
            if (val[0] == '/') snprintf(tmp, sizeof tmp, "%s", val);
            else join(tmp, sizeof tmp, sofar, val);
            H5Gclose(cur);
            cur = -1;
            /* open the target by walking again; it holds only links already checked */
            hid_t r = H5Gopen2(w->file, "/", H5P_DEFAULT);
            char *s2 = NULL;
            for (char *nm = strtok_r(tmp, "/", &s2); nm && r >= 0; nm = strtok_r(NULL, "/", &s2)) {
                hid_t nx = H5Oopen(r, nm, H5P_DEFAULT);
                H5Oclose(r);
                r = nx;
            }
            next = r;
        } else {
            next = H5Oopen(cur, name, H5P_DEFAULT);
            H5Oclose(cur);
            cur = -1;
        }
        snprintf(sofar, sizeof sofar, "%s", here);
        cur = next;
        if (cur < 0) {
            snprintf(why, wsize, "'%.200s' cannot be opened", here);
            rc = -1;
            break;
        }
    }
    if (cur >= 0) H5Oclose(cur);
    return rc;
}

typedef struct {
    walk *w;
    const char *dir;
    uint32_t node;
    uint32_t depth;
} link_ctx;

/* Is the group first met at `anc` an ancestor of (or) the group at `dir`? */
static bool is_ancestor(const char *anc, const char *dir)
{
    if (!strcmp(anc, "/")) return true;
    size_t n = strlen(anc);
    return !strncmp(anc, dir, n) && (dir[n] == '\0' || dir[n] == '/');
}

/* A soft link whose path stays in the file: libhdf5 may follow it now.
   To a group that holds the link, it is a cycle for every reader that
   follows links; anywhere else, one more path to count (count_paths). */
static void soft_target(walk *w, hid_t g, const char *name, const char *path, const char *val,
                        const link_ctx *lc)
{
    H5O_info_t oi;
    if (H5Oget_info_by_name2(g, name, &oi, H5O_INFO_BASIC, H5P_DEFAULT) < 0) {
        npyg__h5w_failed(w, "link", path, "read the soft link's target");
        return;
    }
    uint32_t n = find_node(w, oi.addr);
    if (n != UINT32_MAX && w->nodes[n].group && is_ancestor(w->nodes[n].path, lc->dir)) {
        npyg__h5w_hazard(w, NPYG_EHDF5_SOFTLINK, "link", path,
               "soft link to '%s', the group '%s' that holds it: a reader that follows links never ends", val,
               w->nodes[n].path);
        return;
    }
    if (!grow((void **)&w->softs, &w->capsofts, w->nsofts + 1, sizeof(softedge))) {
        npyg__h5w_hazard(w, NPYG_EHDF5_SANDBOX, "link", path, "out of memory in the child");
        return;
    }
    w->softs[w->nsofts++] = (softedge){lc->node, oi.addr};
    npyg__h5_rec_object(&w->ch, 0, 0, "link", "soft link", -1, NULL, path, "");
}

static herr_t link_cb(hid_t g, const char *name, const H5L_info_t *li, void *data)
{
    link_ctx *lc = data;
    walk *w = lc->w;
    char path[2 * NPYG__H5_PATH_MAX];
    join(path, sizeof path, lc->dir, name);
    if (!visit(w, path)) return 1;
    if (li->type == H5L_TYPE_EXTERNAL) {
        char val[2 * NPYG__H5_PATH_MAX] = "";
        const char *file = "?", *obj = "?";
        unsigned flags = 0;
        if (li->u.val_size <= sizeof val && H5Lget_val(g, name, val, sizeof val, H5P_DEFAULT) >= 0)
            H5Lunpack_elink_val(val, li->u.val_size, &flags, &file, &obj);
        npyg__h5w_hazard(w, NPYG_EHDF5_EXTLINK, "link", path,
               "external link to '%s:%s': reading it opens another file", file, obj);
        return 0;
    }
    if (li->type == H5L_TYPE_SOFT) {
        char val[NPYG__H5_PATH_MAX], why[NPYG__H5_MSG_MAX];
        if (li->u.val_size > sizeof val || H5Lget_val(g, name, val, sizeof val, H5P_DEFAULT) < 0) {
            npyg__h5w_hazard(w, NPYG_EHDF5_SOFTLINK, "link", path, "soft link whose target libhdf5 cannot read");
            return 0;
        }
        val[sizeof val - 1] = '\0';
        int hops = 0;
        if (resolve_soft(w, lc->dir, val, &hops, why, sizeof why))
            npyg__h5w_hazard(w, NPYG_EHDF5_SOFTLINK, "link", path, "soft link to '%s': %s", val, why);
        else
            soft_target(w, g, name, path, val, lc);
        return 0;
    }
    if (li->type != H5L_TYPE_HARD) {
        npyg__h5w_hazard(w, NPYG_EHDF5_UDLINK, "link", path,
               "user-defined link class %d: its traversal code is not libhdf5's", (int)li->type);
        return 0;
    }
    H5O_info_t oi;
    if (H5Oget_info_by_name2(g, name, &oi, H5O_INFO_BASIC, H5P_DEFAULT) < 0) {
        npyg__h5w_failed(w, "link", path, "read the object");
        return 0;
    }
    uint32_t n = find_node(w, oi.addr);
    if (n != UINT32_MAX) {
        bool cycle = w->nodes[n].group && is_ancestor(w->nodes[n].path, lc->dir);
        add_edge(w, lc->node, n, false, cycle);
        if (cycle)
            npyg__h5w_hazard(w, NPYG_EHDF5_REFCYCLE, "link", path,
                   "hard link back to '%s', which contains it: a recursive reader never ends",
                   w->nodes[n].path);
        else
            npyg__h5_rec_object(&w->ch, 0, 0, "link", "hard link", -1, NULL, path, "");
        return 0;
    }
    n = add_node(w, oi.addr, path, oi.type == H5O_TYPE_GROUP);
    if (n == UINT32_MAX) {
        npyg__h5w_hazard(w, NPYG_EHDF5_SANDBOX, "link", path, "out of memory in the child");
        return 1;
    }
    add_edge(w, lc->node, n, false, false);
    hid_t o = H5Oopen(g, name, H5P_DEFAULT);
    if (o < 0) {
        npyg__h5w_failed(w, "link", path, "open the object");
        return 0;
    }
    scan_object(w, o, path, lc->dir, n, lc->depth + 1);
    return w->over ? 1 : 0;
}

static void walk_queue(walk *w);

static void run_walk(walk *w)
{
    hid_t root = H5Gopen2(w->file, "/", H5P_DEFAULT);
    H5O_info_t oi;
    if (root < 0 || H5Oget_info2(root, &oi, H5O_INFO_BASIC) < 0) {
        npyg__h5w_failed(w, "group", "/", "open the root group");
        if (root >= 0) H5Gclose(root);
        return;
    }
    hsize_t fsize = 0;
    w->file_size = H5Fget_filesize(w->file, &fsize) >= 0 ? fsize : 0;
    uint32_t n = add_node(w, oi.addr, "/", true);
    if (n == UINT32_MAX) {
        H5Gclose(root);
        return;
    }
    sattrs s;
    scan_attrs(w, root, "/", n, &s);
    npyg__h5s_check(&s, false, "group", 0, -1, NULL, NULL);
    if (s.problem[0]) report(w, "group", "group", -1, NULL, "/", &s);
    enqueue(w, root, n, 0);
    for (;;) {
        walk_queue(w);
        if (w->nrefs == 0 || w->over) break;
        pending r = w->refs[--w->nrefs];
        follow_refs(w, &r);
        if (r.attr) H5Aclose(r.obj);
        else H5Dclose(r.obj);
        free(r.member);
        free(r.path);
    }
    if (w->over) return;
    for (uint32_t i = 0; i < w->nsofts; i++) {
        uint32_t to = find_node(w, w->softs[i].addr);
        if (to != UINT32_MAX) add_edge(w, w->softs[i].from, to, false, false);
    }
    npyg__h5w_find_ref_cycles(w);
    npyg__h5w_count_paths(w);
}

static void walk_queue(walk *w)
{
    while (w->qhead < w->qtail) {
        qitem q = w->queue[w->qhead++];
        if (!w->over) {
            link_ctx lc = {w, w->nodes[q.node].path, q.node, q.depth};
            hsize_t idx = 0;
            if (H5Literate(q.gid, H5_INDEX_NAME, H5_ITER_INC, &idx, link_cb, &lc) < 0 && !w->over) {
                npyg__h5w_failed(w, "group", lc.dir, "list the group");
            }
        }
        H5Gclose(q.gid);
    }
}

/* What the walk holds when it ends, for the fuzz harness, which walks
   again in the same process (a child exits instead). */
static void free_walk(walk *w)
{
    while (w->qhead < w->qtail) H5Gclose(w->queue[w->qhead++].gid);
    for (uint32_t i = 0; i < w->nrefs; i++) {
        if (w->refs[i].attr) H5Aclose(w->refs[i].obj);
        else H5Dclose(w->refs[i].obj);
        free(w->refs[i].member);
        free(w->refs[i].path);
    }
    for (uint32_t i = 0; i < w->nnodes; i++) free(w->nodes[i].path);
    free(w->nodes);
    free(w->hash);
    free(w->edges);
    free(w->queue);
    free(w->refs);
    free(w->softs);
}

bool npyg__h5_walk(hid_t file, const void *image, uint64_t size, int out, const npyg__h5_params *params)
{
    walk w;
    memset(&w, 0, sizeof w);
    w.p = params;
    w.ch.out = out;
    w.file = file;
    /* A child forked from a worker thread allocates from that thread's
       arena; glibc shrinks such an arena after a large free only after
       reading /proc/sys/vm/overcommit_memory, an open the seccomp filter
       kills. Never trimming keeps malloc inside the filter. */
    mallopt(M_TRIM_THRESHOLD, INT_MAX);
    npyg__h5w_vlen_setup(&w, image, size);
    run_walk(&w);
    npyg__h5w_vlen_teardown(&w);
    bool clean = !w.ch.refused && !w.over && !w.ch.dead;
    if (!params->exits) free_walk(&w);
    return clean;
}
