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

#include "h5api.h"

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ------------------------------------------------------------ records */

typedef struct {
    int out;
    bool dead; /* the pipe broke: stop writing */
} chan;

static void put_escaped(char *dst, size_t *o, size_t cap, const char *s, size_t max)
{
    static const char hex[] = "0123456789abcdef";
    size_t start = *o;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*o - start + 4 > max || *o + 5 > cap) {
            /* keep the line bounded; mark the cut */
            if (*o + 3 < cap) { dst[(*o)++] = '.'; dst[(*o)++] = '.'; dst[(*o)++] = '.'; }
            break;
        }
        if (*p < 0x20 || *p >= 0x7f || *p == '\\') {
            dst[(*o)++] = '\\';
            dst[(*o)++] = 'x';
            dst[(*o)++] = hex[*p >> 4];
            dst[(*o)++] = hex[*p & 15];
        } else {
            dst[(*o)++] = (char)*p;
        }
    }
}

static void send_line(chan *c, const char *buf, size_t len)
{
    size_t done = 0;
    while (!c->dead && done < len) {
        ssize_t w = write(c->out, buf + done, len - done);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) c->dead = true;
        else done += (size_t)w;
    }
}

static void rec_object(chan *c, int code, unsigned warnings, const char *kind, const char *type,
                       int ndim, const hsize_t *dims, const char *path, const char *msg)
{
    char line[NPYG__H5_LINE];
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

static void rec_end(chan *c, int code, const char *msg)
{
    char line[NPYG__H5_LINE];
    size_t o = (size_t)snprintf(line, sizeof line, "E\t%d\t", code);
    put_escaped(line, &o, sizeof line - 2, msg, NPYG__H5_MSG_MAX);
    line[o++] = '\n';
    send_line(c, line, o);
}

/* ------------------------------------------------------- object table */

typedef struct {
    haddr_t addr;
    char *path;      /* where the walk first met it */
    bool group;
} node;

typedef struct {
    uint32_t from, to;
    bool ref;        /* a reference; else a hard link */
    bool reported;   /* a hard-link cycle already reported at the link */
} edge;

typedef struct {
    hid_t gid;
    uint32_t node;
    uint32_t depth;
} qitem;

typedef struct {
    hid_t did;
    char *path;
    uint32_t node;
    hssize_t np;
} pending;

typedef struct {
    chan ch;
    const npyg__h5_params *p;
    hid_t file;
    uint64_t visits;   /* links, attributes, references: against max_objects */
    bool over;         /* max_objects reached: stop */
    int hazards;

    node *nodes;
    uint32_t nnodes, capnodes;
    uint32_t *hash;    /* open addressing: node index + 1, 0 empty */
    uint32_t hashcap;

    edge *edges;
    uint32_t nedges, capedges;

    qitem *queue;
    uint32_t qhead, qtail, qcap;

    /* reference datasets, followed once the tree is walked, so that
       objects are named by their links before references reach them */
    pending *refs;
    uint32_t nrefs, caprefs;
} walk;

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
    w->nodes[i] = (node){addr, copy, group};
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
        rec_object(&w->ch, NPYG_ELIMIT_OBJECTS, 0, "file", "", -1, NULL, path, msg);
        w->over = true;
        w->hazards++;
        return false;
    }
    return true;
}

static void hazard(walk *w, int code, const char *kind, const char *path, const char *fmt, ...)
    NPYG__PRINTF(5, 6);
static void hazard(walk *w, int code, const char *kind, const char *path, const char *fmt, ...)
{
    char msg[NPYG__H5_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    rec_object(&w->ch, code, 0, kind, "", -1, NULL, path, msg);
    w->hazards++;
}

/* A hazard of a dataset, with its type and shape. */
static void dhazard(walk *w, int code, const char *type, int ndim, const hsize_t *dims, const char *path,
                    const char *fmt, ...) NPYG__PRINTF(7, 8);
static void dhazard(walk *w, int code, const char *type, int ndim, const hsize_t *dims, const char *path,
                    const char *fmt, ...)
{
    char msg[NPYG__H5_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    rec_object(&w->ch, code, 0, "dataset", type, ndim, dims, path, msg);
    w->hazards++;
}

static void join(char *out, size_t size, const char *dir, const char *name)
{
    snprintf(out, size, "%s%s%s", dir, strcmp(dir, "/") == 0 ? "" : "/", name);
}

/* The innermost message libhdf5 left on its error stack. */
static herr_t err_walk(unsigned n, const H5E_error2_t *e, void *data)
{
    (void)n;
    char *out = data;
    if (e->desc && !out[0]) snprintf(out, 160, "%s", e->desc);
    return 0;
}

static void last_h5_error(char *out)
{
    out[0] = '\0';
    H5Ewalk2(H5E_DEFAULT, H5E_WALK_DOWNWARD, err_walk, out);
    if (!out[0]) snprintf(out, 160, "unknown error");
}

/* An object libhdf5 failed on: "libhdf5 cannot WHAT: its own words". */
static void h5_failed(walk *w, const char *kind, const char *path, const char *what)
{
    char e[160];
    last_h5_error(e);
    hazard(w, NPYG_EHDF5_OBJECT, kind, path, "libhdf5 cannot %s: %s", what, e);
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

/* ------------------------------------------------- hdf5storage check */

typedef struct {
    char python_type[64], underlying[64], container[32], matlab_class[32], h5path[NPYG__H5_PATH_MAX];
    bool has_python_type, has_underlying, has_container, has_matlab_class, has_h5path;
    uint64_t shape[NPYG__H5_MAX_DIMS];
    int shape_n;                 /* -1: no Python.Shape */
    int python_empty, matlab_empty; /* -1: absent */
    long long int_decode;        /* -1: absent */
    bool has_python_fields, has_matlab_fields;
    char problem[NPYG__H5_MSG_MAX]; /* first inconsistency */
} sattrs;

static void problem(sattrs *s, const char *fmt, ...) NPYG__PRINTF(2, 3);
static void problem(sattrs *s, const char *fmt, ...)
{
    if (s->problem[0]) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->problem, sizeof s->problem, fmt, ap);
    va_end(ap);
}

/* A scalar or one-element string attribute, fixed or variable length. */
static bool read_str_attr(hid_t a, char *out, size_t size)
{
    bool ok = false;
    hid_t t = H5Aget_type(a), sp = H5Aget_space(a);
    if (t < 0 || sp < 0 || H5Tget_class(t) != H5T_STRING || H5Sget_simple_extent_npoints(sp) != 1)
        goto done;
    if (H5Tis_variable_str(t) > 0) {
        hid_t m = H5Tcopy(H5T_C_S1);
        H5Tset_size(m, H5T_VARIABLE);
        char *v = NULL;
        if (H5Aread(a, m, &v) >= 0 && v) {
            snprintf(out, size, "%s", v);
            ok = true;
        }
        if (v) H5free_memory(v);
        H5Tclose(m);
    } else {
        size_t n = H5Tget_size(t);
        if (n + 1 > size) goto done;
        hid_t m = H5Tcopy(H5T_C_S1);
        H5Tset_size(m, n + 1);
        H5Tset_strpad(m, H5T_STR_NULLTERM);
        if (H5Aread(a, m, out) >= 0) {
            out[n] = '\0';
            ok = true;
        }
        H5Tclose(m);
    }
done:
    if (t >= 0) H5Tclose(t);
    if (sp >= 0) H5Sclose(sp);
    return ok;
}

static bool read_int_attr(hid_t a, long long *v, uint64_t *arr, int *n)
{
    bool ok = false;
    hid_t t = H5Aget_type(a), sp = H5Aget_space(a);
    hssize_t np = sp >= 0 ? H5Sget_simple_extent_npoints(sp) : -1;
    if (t >= 0 && H5Tget_class(t) == H5T_INTEGER && np >= 0 && np <= NPYG__H5_MAX_DIMS) {
        uint64_t buf[NPYG__H5_MAX_DIMS];
        long long one = 0;
        if (arr) ok = H5Aread(a, H5T_NATIVE_UINT64, buf) >= 0;
        else ok = np == 1 && H5Aread(a, H5T_NATIVE_LLONG, &one) >= 0;
        if (ok && arr) {
            memcpy(arr, buf, (size_t)np * sizeof *buf);
            *n = (int)np;
        }
        if (ok && v) *v = one;
    }
    if (t >= 0) H5Tclose(t);
    if (sp >= 0) H5Sclose(sp);
    return ok;
}

typedef struct {
    walk *w;
    const char *path;
    sattrs *s;
} attr_ctx;

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
        h5_failed(w, "attribute", apath, "open the attribute");
        return 0;
    }
    hid_t t = H5Aget_type(a), sp = H5Aget_space(a);
    hssize_t np = sp >= 0 ? H5Sget_simple_extent_npoints(sp) : -1;
    size_t tsz = t >= 0 ? H5Tget_size(t) : 0;
    uint64_t bytes;
    if (np < 0 || t < 0) {
        hazard(w, NPYG_EHDF5_OBJECT, "attribute", apath, "libhdf5 cannot read the attribute's type or space");
    } else if (!npyg__mul_u64((uint64_t)np, tsz, &bytes) || bytes > w->p->max_payload) {
        hazard(w, NPYG_ELIMIT_PAYLOAD, "attribute", apath,
               "attribute declares %llu elements of %zu bytes, more than max_payload_bytes (%llu)",
               (unsigned long long)np, tsz, (unsigned long long)w->p->max_payload);
    } else {
        sattrs *s = ac->s;
        /* Only small attributes are read: hdf5storage's are a few bytes. */
        bool small = bytes <= 4096;
        if (!strcmp(name, "Python.Type") && small)
            s->has_python_type = read_str_attr(a, s->python_type, sizeof s->python_type);
        else if (!strcmp(name, "Python.numpy.UnderlyingType") && small)
            s->has_underlying = read_str_attr(a, s->underlying, sizeof s->underlying);
        else if (!strcmp(name, "Python.numpy.Container") && small)
            s->has_container = read_str_attr(a, s->container, sizeof s->container);
        else if (!strcmp(name, "MATLAB_class") && small)
            s->has_matlab_class = read_str_attr(a, s->matlab_class, sizeof s->matlab_class);
        else if (!strcmp(name, "H5PATH") && small)
            s->has_h5path = read_str_attr(a, s->h5path, sizeof s->h5path);
        else if (!strcmp(name, "Python.Shape")) {
            if (!read_int_attr(a, NULL, s->shape, &s->shape_n))
                problem(s, "Python.Shape is not an array of at most 32 integers");
        } else if (!strcmp(name, "Python.Empty") || !strcmp(name, "MATLAB_empty")) {
            long long v = -1;
            if (!read_int_attr(a, &v, NULL, NULL) || (v != 0 && v != 1))
                problem(s, "%s is not the integer 0 or 1", name);
            else if (name[0] == 'P') s->python_empty = (int)v;
            else s->matlab_empty = (int)v;
        } else if (!strcmp(name, "MATLAB_int_decode")) {
            if (!read_int_attr(a, &s->int_decode, NULL, NULL))
                problem(s, "MATLAB_int_decode is not an integer");
        } else if (!strcmp(name, "Python.Fields")) {
            s->has_python_fields = true;
        } else if (!strcmp(name, "MATLAB_fields")) {
            s->has_matlab_fields = true;
        }
    }
    if (t >= 0) H5Tclose(t);
    if (sp >= 0) H5Sclose(sp);
    H5Aclose(a);
    return w->over ? 1 : 0;
}

static bool in_list(const char *v, const char *const *list)
{
    for (; *list; list++)
        if (!strcmp(v, *list)) return true;
    return false;
}

/* "int8".."uint64", "float16/32/64", "complex64/128", "bool", "object",
   "bytesN", "strN", "voidN" (numpy dtype names as hdf5storage writes them). */
static bool known_underlying(const char *u)
{
    static const char *const fixed[] = {"bool", "int8", "int16", "int32", "int64", "uint8",
        "uint16", "uint32", "uint64", "float16", "float32", "float64", "complex64",
        "complex128", "object", NULL};
    if (in_list(u, fixed)) return true;
    const char *digits = NULL;
    if (!strncmp(u, "bytes", 5)) digits = u + 5;
    else if (!strncmp(u, "str", 3)) digits = u + 3;
    else if (!strncmp(u, "void", 4)) digits = u + 4;
    else if (!strncmp(u, "record", 6)) digits = u + 6; /* a recarray's dtype name */
    if (!digits) return false;
    if (!*digits) return u[0] != 'v' && u[0] != 'r'; /* itemsize 0: "bytes", "str" */
    for (const char *d = digits; *d; d++)
        if (*d < '0' || *d > '9') return false;
    return true;
}

/* hdf5storage's MATLAB_class for a numpy dtype name; NULL: none. */
static const char *matlab_class_of(const char *u)
{
    static const char *const map[][2] = {{"bool", "logical"}, {"int8", "int8"}, {"int16", "int16"},
        {"int32", "int32"}, {"int64", "int64"}, {"uint8", "uint8"}, {"uint16", "uint16"},
        {"uint32", "uint32"}, {"uint64", "uint64"}, {"float32", "single"}, {"float64", "double"},
        {"complex64", "single"}, {"complex128", "double"}, {"object", "cell"}};
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (!strcmp(u, map[i][0])) return map[i][1];
    if (!strncmp(u, "bytes", 5) || !strncmp(u, "str", 3)) return "char";
    return NULL;
}

/* Is a dataset of type t what hdf5storage writes for underlying type u? */
static bool type_matches(const char *u, const char *actual)
{
    if (!strcmp(u, "object")) return !strcmp(actual, "object reference");
    if (!strcmp(u, "bool")) return !strcmp(actual, "bool") || !strcmp(actual, "uint8");
    if (!strncmp(u, "complex", 7)) {
        /* complexN is stored as a compound of two floats of N/16 bytes */
        char rec[32];
        snprintf(rec, sizeof rec, "compound%lu", strtoul(u + 7, NULL, 10) / 8);
        return !strcmp(u, actual) || !strcmp(rec, actual);
    }
    if (!strncmp(u, "int", 3) || !strncmp(u, "uint", 4) || !strncmp(u, "float", 5))
        return !strcmp(u, actual);
    return true; /* strings and records take several stored forms */
}

static void check_storage(walk *w, sattrs *s, bool dataset, const char *actual, uint64_t itemsize,
                          int ndim, const hsize_t *dims, const char *parent)
{
    static const char *const ptypes[] = {"bool", "int", "long", "float", "complex", "str", "bytes",
        "bytearray", "builtins.NoneType", "list", "tuple", "set", "frozenset",
        "collections.deque", "dict", "numpy.ndarray", "numpy.matrix", "numpy.chararray",
        "numpy.recarray", "numpy.bool_", "numpy.void", "numpy.uint8", "numpy.uint16",
        "numpy.uint32", "numpy.uint64", "numpy.int8", "numpy.int16", "numpy.int32", "numpy.int64",
        "numpy.float16", "numpy.float32", "numpy.float64", "numpy.complex64", "numpy.complex128",
        "numpy.bytes_", "numpy.str_", "numpy.object_", NULL};
    static const char *const containers[] = {"scalar", "ndarray", "matrix", "chararray", "recarray", NULL};
    static const char *const mclasses[] = {"logical", "char", "int8", "int16", "int32", "int64",
        "uint8", "uint16", "uint32", "uint64", "single", "double", "cell", "struct",
        "canonical empty", "function_handle", NULL};
    (void)w;
    if (s->has_python_type && !in_list(s->python_type, ptypes))
        problem(s, "Python.Type '%s' is not a type hdf5storage writes", s->python_type);
    if (s->has_underlying && !known_underlying(s->underlying))
        problem(s, "Python.numpy.UnderlyingType '%s' is not a numpy type hdf5storage writes", s->underlying);
    if (s->has_container && !in_list(s->container, containers))
        problem(s, "Python.numpy.Container '%s' is not one of scalar, ndarray, matrix, chararray, recarray",
                s->container);
    if (s->has_matlab_class && !in_list(s->matlab_class, mclasses))
        problem(s, "MATLAB_class '%s' is not a MATLAB class", s->matlab_class);
    bool empty = s->python_empty == 1 || s->matlab_empty == 1;
    if (s->has_underlying && s->has_matlab_class && known_underlying(s->underlying) &&
        strcmp(s->matlab_class, "struct") && strcmp(s->matlab_class, "canonical empty")) {
        const char *want = matlab_class_of(s->underlying);
        if (want && strcmp(want, s->matlab_class))
            problem(s, "MATLAB_class '%s' contradicts Python.numpy.UnderlyingType '%s' (hdf5storage writes '%s')",
                    s->matlab_class, s->underlying, want);
    }
    if (s->int_decode != -1) {
        if (!s->has_matlab_class || (strcmp(s->matlab_class, "char") && strcmp(s->matlab_class, "logical")))
            problem(s, "MATLAB_int_decode on an object whose MATLAB_class is not char or logical");
        else if (dataset && (uint64_t)s->int_decode != itemsize)
            /* hdf5storage writes the stored element size: 1 (logical),
               2 or 4 (char), 8 for an empty value stored as its shape */
            problem(s, "MATLAB_int_decode is %lld but the dataset's elements are %llu bytes",
                    s->int_decode, (unsigned long long)itemsize);
    }
    if (dataset && !empty && s->has_underlying && known_underlying(s->underlying) &&
        !type_matches(s->underlying, actual))
        problem(s, "Python.numpy.UnderlyingType '%s' but the dataset holds %s", s->underlying, actual);
    if (dataset && s->has_matlab_class && !empty && !s->has_underlying) {
        static const char *const m2t[][2] = {{"double", "float64"}, {"single", "float32"},
            {"int8", "int8"}, {"int16", "int16"}, {"int32", "int32"}, {"int64", "int64"},
            {"uint8", "uint8"}, {"uint16", "uint16"}, {"uint32", "uint32"}, {"uint64", "uint64"},
            {"cell", "object reference"}};
        for (size_t i = 0; i < sizeof m2t / sizeof m2t[0]; i++)
            if (!strcmp(s->matlab_class, m2t[i][0]) && strcmp(actual, m2t[i][1]) &&
                !(!strcmp(m2t[i][0], "double") && (!strcmp(actual, "complex128") || !strcmp(actual, "compound16"))) &&
                !(!strcmp(m2t[i][0], "single") && (!strcmp(actual, "complex64") || !strcmp(actual, "compound8"))))
                problem(s, "MATLAB_class '%s' but the dataset holds %s", s->matlab_class, actual);
        if (!strcmp(s->matlab_class, "char") && strncmp(actual, "uint", 4) && strncmp(actual, "bytes", 5))
            problem(s, "MATLAB_class 'char' but the dataset holds %s", actual);
    }
    if (dataset && s->shape_n >= 0) {
        uint64_t want = 1, have = 1;
        bool ok = true;
        for (int i = 0; i < s->shape_n; i++) ok &= npyg__mul_u64(want, s->shape[i], &want);
        for (int i = 0; i < ndim; i++) ok &= npyg__mul_u64(have, dims[i], &have);
        bool numeric = s->has_underlying && strncmp(s->underlying, "bytes", 5) &&
                       strncmp(s->underlying, "str", 3) && strncmp(s->underlying, "void", 4) &&
                       strncmp(s->underlying, "record", 6);
        if (s->python_empty == 1 && want != 0 && numeric)
            problem(s, "Python.Empty is 1 but Python.Shape has %llu elements", (unsigned long long)want);
        if (ok && !empty && numeric && want != have)
            problem(s, "Python.Shape has %llu elements but the dataset %llu", (unsigned long long)want,
                    (unsigned long long)have);
    }
    if (s->has_h5path && parent && strcmp(s->h5path, parent))
        problem(s, "H5PATH '%s' but the object is in '%s'", s->h5path, parent);
}

/* Scans an object's attributes; fills s. */
static void scan_attrs(walk *w, hid_t obj, const char *path, sattrs *s)
{
    memset(s, 0, sizeof *s);
    s->shape_n = -1;
    s->python_empty = s->matlab_empty = -1;
    s->int_decode = -1;
    attr_ctx ac = {w, path, s};
    hsize_t idx = 0;
    if (H5Aiterate2(obj, H5_INDEX_NAME, H5_ITER_INC, &idx, attr_cb, &ac) < 0 && !w->over) {
        h5_failed(w, "attribute", path, "list the attributes");
    }
}

/* Reports the object; a storage-format problem is a warning, or an error
   under the strict profile. */
static void report(walk *w, const char *kind, const char *type, int ndim, const hsize_t *dims,
                   const char *path, const sattrs *s)
{
    if (s && s->problem[0]) {
        if (w->p->strict) {
            rec_object(&w->ch, NPYG_EHDF5_FORMAT, 0, kind, type, ndim, dims, path, s->problem);
            w->hazards++;
        } else {
            rec_object(&w->ch, 0, NPYG_HW_FORMAT, kind, type, ndim, dims, path, s->problem);
        }
        return;
    }
    rec_object(&w->ch, 0, 0, kind, type, ndim, dims, path, "");
}

/* ------------------------------------------------------------ walking */

static void enqueue(walk *w, hid_t gid, uint32_t n, uint32_t depth)
{
    if (!grow((void **)&w->queue, &w->qcap, w->qtail + 1, sizeof(qitem))) {
        H5Gclose(gid);
        hazard(w, NPYG_EHDF5_SANDBOX, "group", w->nodes[n].path, "out of memory in the child");
        return;
    }
    w->queue[w->qtail++] = (qitem){gid, n, depth};
}

static void scan_object(walk *w, hid_t oid, const char *path, const char *parent, uint32_t n,
                        uint32_t depth);

/* Follows a reference dataset's references (raw data read: only called
   when its storage is all in this file). */
static void follow_refs(walk *w, hid_t d, hid_t t, hssize_t np, const char *path, uint32_t from)
{
    bool region = H5Tequal(t, H5T_STD_REF_DSETREG) > 0;
    size_t esz = region ? sizeof(hdset_reg_ref_t) : sizeof(hobj_ref_t);
    if (np <= 0) return;
    if ((uint64_t)np > w->p->max_objects) {
        w->visits += (uint64_t)np; /* past the limit: visit() reports it */
        visit(w, path);
        return;
    }
    unsigned char *buf = malloc((size_t)np * esz);
    if (!buf) {
        hazard(w, NPYG_EHDF5_SANDBOX, "dataset", path, "out of memory in the child");
        return;
    }
    if (H5Dread(d, region ? H5T_STD_REF_DSETREG : H5T_STD_REF_OBJ, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0) {
        h5_failed(w, "dataset", path, "read the references");
        free(buf);
        return;
    }
    int dangling = 0;
    for (hssize_t i = 0; i < np && !w->over; i++) {
        const void *ref = buf + (size_t)i * esz;
        char rpath[NPYG__H5_PATH_MAX + 64];
        snprintf(rpath, sizeof rpath, "%s[%lld]", path, (long long)i);
        if (!visit(w, rpath)) break;
        static const unsigned char zero[sizeof(hdset_reg_ref_t)];
        if (!memcmp(ref, zero, esz)) {
            if (!dangling++)
                hazard(w, NPYG_EHDF5_REFDANGLE, "dataset", path, "element %lld is a null reference", (long long)i);
            continue;
        }
        hid_t o = H5Rdereference2(d, H5P_DEFAULT, region ? H5R_DATASET_REGION : H5R_OBJECT, ref);
        H5O_info_t oi;
        if (o < 0 || H5Oget_info2(o, &oi, H5O_INFO_BASIC) < 0) {
            if (!dangling++)
                hazard(w, NPYG_EHDF5_REFDANGLE, "dataset", path,
                       "element %lld references no object in this file", (long long)i);
            if (o >= 0) H5Oclose(o);
            continue;
        }
        if (region) {
            hid_t sp = H5Rget_region(d, H5R_DATASET_REGION, ref);
            if (sp < 0 && !dangling++)
                hazard(w, NPYG_EHDF5_REFDANGLE, "dataset", path,
                       "element %lld references a region libhdf5 cannot read", (long long)i);
            if (sp >= 0) H5Sclose(sp);
        }
        uint32_t to = find_node(w, oi.addr);
        if (to == UINT32_MAX) {
            /* An object no link names: scan it where the reference finds it. */
            to = add_node(w, oi.addr, rpath, oi.type == H5O_TYPE_GROUP);
            if (to == UINT32_MAX) {
                H5Oclose(o);
                hazard(w, NPYG_EHDF5_SANDBOX, "dataset", path, "out of memory in the child");
                break;
            }
            add_edge(w, from, to, true, false);
            scan_object(w, o, rpath, NULL, to, 1);
            continue; /* scan_object took o */
        }
        add_edge(w, from, to, true, false);
        H5Oclose(o);
    }
    free(buf);
}

static void scan_dataset(walk *w, hid_t d, const char *path, const char *parent, uint32_t n)
{
    char tname[64] = "unknown";
    hsize_t dims[NPYG__H5_MAX_DIMS];
    int ndim = -1;
    hid_t t = H5Dget_type(d), sp = H5Dget_space(d), dcpl = H5Dget_create_plist(d);
    if (t < 0 || sp < 0 || dcpl < 0) {
        h5_failed(w, "dataset", path, "read the dataset's type, space or layout");
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
        dhazard(w, NPYG_EHDF5_VIRTUAL, tname, ndim, dims, path,
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
        dhazard(w, NPYG_EHDF5_EXTFILE, tname, ndim, dims, path,
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
            dhazard(w, NPYG_EHDF5_FILTER, tname, ndim, dims, path,
                   "filter %d ('%s') is not built into libhdf5: reading it loads a plugin", (int)id, fname);
            in_file = false;
        } else if (H5Zfilter_avail(id) <= 0) {
            dhazard(w, NPYG_EHDF5_FILTER, tname, ndim, dims, path,
                   "filter %d ('%s') is not available in this libhdf5", (int)id, fname);
            in_file = false;
        }
    }
    hssize_t np = H5Sget_simple_extent_npoints(sp);
    size_t tsz = H5Tget_size(t);
    uint64_t bytes = 0;
    if (np < 0 || !npyg__mul_u64((uint64_t)np, tsz, &bytes) || bytes > w->p->max_payload) {
        dhazard(w, NPYG_ELIMIT_PAYLOAD, tname, ndim, dims, path,
               "dataset declares %llu elements of %zu bytes, more than max_payload_bytes (%llu)",
               (unsigned long long)np, tsz, (unsigned long long)w->p->max_payload);
        in_file = false;
    }

    sattrs s;
    scan_attrs(w, d, path, &s);
    check_storage(w, &s, true, tname, tsz, ndim, dims, parent);
    if (w->hazards == before) report(w, "dataset", tname, ndim, dims, path, &s);
    if (in_file && H5Tget_class(t) == H5T_REFERENCE && !w->over) {
        char *copy = strdup(path);
        if (!copy || !grow((void **)&w->refs, &w->caprefs, w->nrefs + 1, sizeof(pending))) {
            free(copy);
            hazard(w, NPYG_EHDF5_SANDBOX, "dataset", path, "out of memory in the child");
        } else {
            H5Iinc_ref(d);
            w->refs[w->nrefs++] = (pending){d, copy, n, np};
        }
    }
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
            hazard(w, NPYG_ELIMIT_NESTING, "group", path,
                   "groups nested deeper than max_nesting (%u); below this is not scanned", w->p->max_nesting);
            H5Gclose(oid);
            return;
        }
        sattrs s;
        scan_attrs(w, oid, path, &s);
        check_storage(w, &s, false, "group", 0, -1, NULL, parent);
        report(w, "group", "group", -1, NULL, path, &s);
        enqueue(w, oid, n, depth);
        return;
    }
    if (it == H5I_DATASET) scan_dataset(w, oid, path, parent, n);
    else rec_object(&w->ch, 0, 0, "datatype", "named datatype", -1, NULL, path, "");
    H5Oclose(oid);
}

/* Resolves a soft link's target without letting libhdf5 follow anything
   but hard links: one name at a time from an open group. 0 when it names
   an object of this file; else a reason in why. */
static int resolve_soft(walk *w, const char *base, const char *target, int hops, char *why, size_t wsize)
{
    if (hops > 16) {
        snprintf(why, wsize, "soft links chained more than 16 deep (a loop?)");
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
            rc = resolve_soft(w, sofar, val, hops + 1, why, wsize);
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
        hazard(w, NPYG_EHDF5_EXTLINK, "link", path,
               "external link to '%s:%s': reading it opens another file", file, obj);
        return 0;
    }
    if (li->type == H5L_TYPE_SOFT) {
        char val[NPYG__H5_PATH_MAX], why[NPYG__H5_MSG_MAX];
        if (li->u.val_size > sizeof val || H5Lget_val(g, name, val, sizeof val, H5P_DEFAULT) < 0) {
            hazard(w, NPYG_EHDF5_SOFTLINK, "link", path, "soft link whose target libhdf5 cannot read");
            return 0;
        }
        val[sizeof val - 1] = '\0';
        if (resolve_soft(w, lc->dir, val, 0, why, sizeof why))
            hazard(w, NPYG_EHDF5_SOFTLINK, "link", path, "soft link to '%s': %s", val, why);
        else
            rec_object(&w->ch, 0, 0, "link", "soft link", -1, NULL, path, "");
        return 0;
    }
    if (li->type != H5L_TYPE_HARD) {
        hazard(w, NPYG_EHDF5_UDLINK, "link", path,
               "user-defined link class %d: its traversal code is not libhdf5's", (int)li->type);
        return 0;
    }
    H5O_info_t oi;
    if (H5Oget_info_by_name2(g, name, &oi, H5O_INFO_BASIC, H5P_DEFAULT) < 0) {
        h5_failed(w, "link", path, "read the object");
        return 0;
    }
    uint32_t n = find_node(w, oi.addr);
    if (n != UINT32_MAX) {
        bool cycle = w->nodes[n].group && is_ancestor(w->nodes[n].path, lc->dir);
        add_edge(w, lc->node, n, false, cycle);
        if (cycle)
            hazard(w, NPYG_EHDF5_REFCYCLE, "link", path,
                   "hard link back to '%s', which contains it: a recursive reader never ends",
                   w->nodes[n].path);
        else
            rec_object(&w->ch, 0, 0, "link", "hard link", -1, NULL, path, "");
        return 0;
    }
    n = add_node(w, oi.addr, path, oi.type == H5O_TYPE_GROUP);
    if (n == UINT32_MAX) {
        hazard(w, NPYG_EHDF5_SANDBOX, "link", path, "out of memory in the child");
        return 1;
    }
    add_edge(w, lc->node, n, false, false);
    hid_t o = H5Oopen(g, name, H5P_DEFAULT);
    if (o < 0) {
        h5_failed(w, "link", path, "open the object");
        return 0;
    }
    scan_object(w, o, path, lc->dir, n, lc->depth + 1);
    return w->over ? 1 : 0;
}

/* Cycles through at least one reference (hard-link cycles are reported at
   their link): iterative depth-first search, colours white/grey/black. */
static void find_ref_cycles(walk *w)
{
    uint32_t nn = w->nnodes, ne = w->nedges;
    uint32_t *start = calloc((size_t)nn + 1, sizeof *start), *adj = malloc(((size_t)ne + 1) * sizeof *adj);
    unsigned char *colour = calloc((size_t)nn + 1, 1);
    uint32_t *stack = malloc(((size_t)nn + 1) * sizeof *stack), *pos = calloc((size_t)nn + 1, sizeof *pos);
    if (!start || !adj || !colour || !stack || !pos) goto out;
    for (uint32_t i = 0; i < ne; i++) start[w->edges[i].from + 1]++;
    for (uint32_t i = 0; i < nn; i++) start[i + 1] += start[i];
    uint32_t *fill = pos; /* borrowed, reset below */
    for (uint32_t i = 0; i < ne; i++) adj[start[w->edges[i].from] + fill[w->edges[i].from]++] = i;
    memset(pos, 0, ((size_t)nn + 1) * sizeof *pos);
    for (uint32_t root = 0; root < nn; root++) {
        if (colour[root]) continue;
        uint32_t sp = 0;
        stack[sp++] = root;
        colour[root] = 1;
        while (sp) {
            uint32_t u = stack[sp - 1];
            if (pos[u] < start[u + 1] - start[u]) {
                const edge *e = &w->edges[adj[start[u] + pos[u]++]];
                if (colour[e->to] == 0) {
                    colour[e->to] = 1;
                    stack[sp++] = e->to;
                } else if (colour[e->to] == 1 && !e->reported) {
                    /* a back edge: the cycle runs through e->to */
                    hazard(w, NPYG_EHDF5_REFCYCLE, "dataset", w->nodes[e->to].path,
                           "references lead from here back to here (through '%s'): a reader that follows them never ends",
                           w->nodes[u].path);
                    w->edges[adj[start[u] + pos[u] - 1]].reported = true;
                }
            } else {
                colour[u] = 2;
                sp--;
            }
        }
    }
out:
    free(start);
    free(adj);
    free(colour);
    free(stack);
    free(pos);
}

static void walk_queue(walk *w);

static void run_walk(walk *w)
{
    hid_t root = H5Gopen2(w->file, "/", H5P_DEFAULT);
    H5O_info_t oi;
    if (root < 0 || H5Oget_info2(root, &oi, H5O_INFO_BASIC) < 0) {
        h5_failed(w, "group", "/", "open the root group");
        if (root >= 0) H5Gclose(root);
        return;
    }
    uint32_t n = add_node(w, oi.addr, "/", true);
    if (n == UINT32_MAX) {
        H5Gclose(root);
        return;
    }
    sattrs s;
    scan_attrs(w, root, "/", &s);
    check_storage(w, &s, false, "group", 0, -1, NULL, NULL);
    if (s.problem[0]) report(w, "group", "group", -1, NULL, "/", &s);
    enqueue(w, root, n, 0);
    for (;;) {
        walk_queue(w);
        if (w->nrefs == 0 || w->over) break;
        pending r = w->refs[--w->nrefs];
        hid_t t = H5Dget_type(r.did);
        if (t >= 0) {
            follow_refs(w, r.did, t, r.np, r.path, r.node);
            H5Tclose(t);
        }
        H5Dclose(r.did);
        free(r.path);
    }
    if (!w->over) find_ref_cycles(w);
}

static void walk_queue(walk *w)
{
    while (w->qhead < w->qtail) {
        qitem q = w->queue[w->qhead++];
        if (!w->over) {
            link_ctx lc = {w, w->nodes[q.node].path, q.node, q.depth};
            hsize_t idx = 0;
            if (H5Literate(q.gid, H5_INDEX_NAME, H5_ITER_INC, &idx, link_cb, &lc) < 0 && !w->over) {
                h5_failed(w, "group", lc.dir, "list the group");
            }
        }
        H5Gclose(q.gid);
    }
}

void npyg__h5_child(int in_fd, int out_fd, const npyg_hdf5_limits *limits, const npyg__h5_params *p)
{
    walk w;
    memset(&w, 0, sizeof w);
    w.p = p;
    w.ch.out = out_fd;
    signal(SIGPIPE, SIG_DFL);
    if (npyg__h5_limit_child(limits, &in_fd, &out_fd) != 0) {
        w.ch.out = out_fd;
        rec_end(&w.ch, NPYG_EHDF5_SANDBOX, "cannot set the child's limits");
        _exit(1);
    }
    w.ch.out = out_fd;
    /* Nothing from the caller's environment steers libhdf5 to other files. */
    static const char *const env[] = {"HDF5_PLUGIN_PATH", "HDF5_PLUGIN_PRELOAD", "HDF5_EXT_PREFIX",
        "HDF5_VDS_PREFIX", "HDF5_DRIVER", "HDF5_DRIVER_CONFIG", "HDF5_USE_FILE_LOCKING", NULL};
    for (const char *const *e = env; *e; e++) unsetenv(*e);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    if (H5PLset_loading_state(0) < 0) {
        rec_end(&w.ch, NPYG_EHDF5_SANDBOX, "libhdf5 refused to turn plugin loading off");
        _exit(1);
    }
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_fapl_sec2(fapl);
#if H5_VERSION_GE(1, 10, 7)
    H5Pset_file_locking(fapl, 0, 1);
#endif
    char name[64];
    snprintf(name, sizeof name, "/proc/self/fd/%d", in_fd);
    w.file = H5Fopen(name, H5F_ACC_RDONLY, fapl);
    char e[160] = "";
    if (w.file < 0) last_h5_error(e);
    H5Pclose(fapl);
    if (npyg__h5_seccomp() != 0) {
        rec_end(&w.ch, NPYG_EHDF5_SANDBOX, "cannot install the seccomp filter");
        _exit(1);
    }
    if (w.file < 0) {
        char msg[256];
        snprintf(msg, sizeof msg, "libhdf5 cannot open the file: %s", e);
        rec_end(&w.ch, NPYG_EHDF5_OPEN, msg);
        _exit(0);
    }
    run_walk(&w);
    rec_end(&w.ch, 0, "");
    _exit(0);
}
