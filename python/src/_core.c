/*
 * npyguard._core: the CPython binding of the C library, compiled from the
 * library's own sources. It exposes the two-step load (a header parsed and
 * checked, then the payload read into memory the caller allocated for
 * exactly that) and the archive reader; the Python layer (npyguard/
 * __init__.py) turns the results into numpy arrays. Errors are raised
 * through a factory the Python layer installs, so each carries the code,
 * name, class, offset and message the C library reported.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <limits.h>
#include <string.h>

#include "npyguard.h"

/* The exception factory, callable(code, name, klass, offset, message,
   offset_space):
   set once, at import, by the Python layer. */
static PyObject *factory;

/* The exception being raised, taken out of the error indicator. */
static PyObject *take_exception(void)
{
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    PyErr_NormalizeException(&type, &value, &tb);
    if (value && tb) PyException_SetTraceback(value, tb);
    Py_XDECREF(type);
    Py_XDECREF(tb);
    return value;
}

static PyObject *raise_error(int code, uint64_t offset, int space, const char *message, PyObject *cause)
{
    if (!factory) {
        PyErr_Format(PyExc_RuntimeError, "%s: %s", npyg_error_name(code), message);
        return NULL;
    }
    PyObject *exc = PyObject_CallFunction(factory, "issKss", code, npyg_error_name(code), npyg_error_class(code),
                                          (unsigned long long)offset, message, npyg_offset_space_name(space));
    if (!exc) {
        Py_XDECREF(cause);
        return NULL;
    }
    if (cause) PyException_SetCause(exc, cause); /* steals cause */
    PyErr_SetObject((PyObject *)Py_TYPE(exc), exc);
    Py_DECREF(exc);
    return NULL;
}

static PyObject *raise_ctx(npyg_ctx *ctx, int rc, PyObject *cause)
{
    const npyg_error *e = npyg_last_error(ctx);
    if (e && e->code == rc) return raise_error(rc, e->offset, e->offset_space, e->message, cause);
    return raise_error(rc, 0, NPYG_OFFSET_FILE, npyg_strerror(rc), cause);
}

static PyObject *set_error_factory(PyObject *self, PyObject *fn)
{
    (void)self;
    if (!PyCallable_Check(fn)) {
        PyErr_SetString(PyExc_TypeError, "the error factory must be callable");
        return NULL;
    }
    Py_XSETREF(factory, Py_NewRef(fn));
    Py_RETURN_NONE;
}

/* ---------------- options: profile and limits ---------------- */

static int get_u64(PyObject *limits, const char *key, uint64_t *out)
{
    PyObject *v = PyDict_GetItemString(limits, key); /* borrowed */
    if (!v) return 0;
    unsigned long long x = PyLong_AsUnsignedLongLong(v);
    if (x == (unsigned long long)-1 && PyErr_Occurred()) return -1;
    *out = x;
    return 0;
}

/* The limits dict (None: the defaults) into lim; -1 with an exception. */
static int parse_limits(PyObject *limits, npyg_limits *lim)
{
    npyg_limits_default(lim);
    if (!limits || limits == Py_None) return 0;
    if (!PyDict_Check(limits)) {
        PyErr_SetString(PyExc_TypeError, "limits must be a dict");
        return -1;
    }
    uint64_t dims = lim->max_dims, fields = lim->max_fields, depth = lim->max_depth;
    if (get_u64(limits, "max_header_bytes", &lim->max_header_bytes) || get_u64(limits, "max_dims", &dims) ||
        get_u64(limits, "max_fields", &fields) || get_u64(limits, "max_depth", &depth) ||
        get_u64(limits, "max_alloc_bytes", &lim->max_alloc_bytes) ||
        get_u64(limits, "max_payload_bytes", &lim->max_payload_bytes))
        return -1;
    if (dims > UINT32_MAX || fields > UINT32_MAX || depth > UINT32_MAX) {
        PyErr_SetString(PyExc_ValueError, "a limit is out of range");
        return -1;
    }
    lim->max_dims = (uint32_t)dims;
    lim->max_fields = (uint32_t)fields;
    lim->max_depth = (uint32_t)depth;
    return 0;
}

/* A context for one input, or NULL with an exception set. */
static npyg_ctx *new_ctx(int strict, PyObject *limits)
{
    npyg_limits lim;
    if (parse_limits(limits, &lim) < 0) return NULL;
    npyg_options opt = {.profile = strict ? NPYG_PROFILE_STRICT : NPYG_PROFILE_NUMPY, .limits = &lim};
    npyg_ctx *ctx = npyg_ctx_new(&opt);
    if (!ctx) {
        if (npyg_worst_case_alloc(&lim) == 0) PyErr_SetString(PyExc_ValueError, "invalid limits");
        else PyErr_NoMemory();
    }
    return ctx;
}

/* ---------------- the result as Python values ---------------- */

static PyObject *shape_tuple(uint32_t nd, const uint64_t *dims)
{
    PyObject *t = PyTuple_New(nd);
    for (uint32_t k = 0; t && k < nd; k++) {
        PyObject *v = PyLong_FromUnsignedLongLong(dims[k]);
        if (!v) { Py_CLEAR(t); break; }
        PyTuple_SET_ITEM(t, k, v);
    }
    return t;
}

/* ('leaf', '<f8') | ('sub', node, shape) | ('struct', [(name, title, offset, node)], itemsize) */
static PyObject *dtype_tree(const npyg_dtype *d)
{
    if (d->kind == NPYG_KIND_SUBARRAY) {
        PyObject *base = dtype_tree(d->base);
        PyObject *shape = base ? shape_tuple(d->sub_ndim, d->sub_shape) : NULL;
        PyObject *r = shape ? Py_BuildValue("(sOO)", "sub", base, shape) : NULL;
        Py_XDECREF(base);
        Py_XDECREF(shape);
        return r;
    }
    if (d->kind == NPYG_KIND_STRUCT) {
        PyObject *fields = PyList_New(d->nfields);
        for (uint32_t k = 0; fields && k < d->nfields; k++) {
            const npyg_field *f = &d->fields[k];
            PyObject *node = dtype_tree(f->type);
            PyObject *item = NULL;
            if (node) {
                if (f->title)
                    item = Py_BuildValue("(s#s#KO)", f->name, (Py_ssize_t)f->name_len, f->title,
                                         (Py_ssize_t)f->title_len, (unsigned long long)f->offset, node);
                else
                    item = Py_BuildValue("(s#OKO)", f->name, (Py_ssize_t)f->name_len, Py_None,
                                         (unsigned long long)f->offset, node);
                Py_DECREF(node);
            }
            if (!item) { Py_CLEAR(fields); break; }
            PyList_SET_ITEM(fields, k, item);
        }
        if (!fields) return NULL;
        PyObject *r = Py_BuildValue("(sOK)", "struct", fields, (unsigned long long)d->itemsize);
        Py_DECREF(fields);
        return r;
    }
    char s[64];
    size_t n = npyg_format_descr(d, s, sizeof s); /* "'<f8'" */
    if (n < 2 || n >= sizeof s) {
        PyErr_SetString(PyExc_RuntimeError, "unexpected typestr");
        return NULL;
    }
    return Py_BuildValue("(ss#)", "leaf", s + 1, (Py_ssize_t)(n - 2));
}


static PyObject *info_dict(const npyg_info *in)
{
    size_t need = npyg_format_descr(in->dtype, NULL, 0);
    char *repr = PyMem_Malloc(need + 1);
    if (!repr) return PyErr_NoMemory();
    npyg_format_descr(in->dtype, repr, need + 1);
    PyObject *warnings = PyList_New(0);
    for (unsigned k = 0; warnings && k < 32; k++) {
        const char *name = npyg_warning_name(1u << k);
        if (!(in->warnings & (1u << k)) || !name) continue;
        PyObject *w = PyUnicode_FromString(name);
        if (!w || PyList_Append(warnings, w) < 0) Py_CLEAR(warnings);
        Py_XDECREF(w);
    }
    PyObject *tree = warnings ? dtype_tree(in->dtype) : NULL;
    PyObject *shape = tree ? shape_tuple(in->ndim, in->shape) : NULL;
    PyObject *r = NULL;
    if (shape)
        r = Py_BuildValue("{s:(ii),s:I,s:K,s:O,s:s#,s:O,s:O,s:K,s:K,s:K,s:K,s:O}", "version", in->version_major,
                          in->version_minor, "header_len", (unsigned)in->header_len, "data_offset",
                          (unsigned long long)in->data_offset, "descr", tree, "descr_repr", repr,
                          (Py_ssize_t)need, "shape", shape, "fortran_order", in->fortran_order ? Py_True : Py_False,
                          "itemsize", (unsigned long long)in->dtype->itemsize, "count",
                          (unsigned long long)in->count, "payload_bytes", (unsigned long long)in->payload_bytes,
                          "trailing_bytes", (unsigned long long)in->trailing_bytes, "warnings", warnings);
    PyMem_Free(repr);
    Py_XDECREF(warnings);
    Py_XDECREF(tree);
    Py_XDECREF(shape);
    return r;
}

/* ---------------- inputs: descriptor, buffer, file object ---------------- */

typedef struct input {
    int fd;            /* >= 0: descriptor */
    Py_buffer view;    /* view.obj: buffer */
    PyObject *file;    /* file object read through readinto / read */
    PyObject *pending; /* the exception the file object raised */
    PyObject *sink;    /* callable given each payload chunk, or NULL */
} input;

static long long file_read(void *user, void *buf, size_t len)
{
    input *in = user;
    if (len > PY_SSIZE_T_MAX) len = PY_SSIZE_T_MAX;
    PyObject *mv = PyMemoryView_FromMemory(buf, (Py_ssize_t)len, PyBUF_WRITE);
    if (!mv) goto fail;
    PyObject *r = PyObject_CallMethod(in->file, "readinto", "O", mv);
    PyObject *exc = r ? NULL : take_exception();
    /* The file object must not keep the view of memory it does not own. */
    PyObject *ignored = PyObject_CallMethod(mv, "release", NULL);
    if (!ignored) PyErr_Clear();
    Py_XDECREF(ignored);
    Py_DECREF(mv);
    if (exc) {
        PyErr_SetObject((PyObject *)Py_TYPE(exc), exc);
        Py_DECREF(exc);
    }
    if (!r) goto fail;
    if (r == Py_None) { /* a non-blocking stream with nothing ready */
        Py_DECREF(r);
        PyErr_SetString(PyExc_BlockingIOError, "the file object has no data ready (non-blocking)");
        goto fail;
    }
    long long n = PyLong_AsLongLong(r);
    Py_DECREF(r);
    if (n == -1 && PyErr_Occurred()) goto fail;
    if (n < 0 || (size_t)n > len) {
        PyErr_SetString(PyExc_OSError, "readinto returned an impossible count");
        goto fail;
    }
    return n;
fail:
    if (!in->pending) in->pending = take_exception();
    else PyErr_Clear();
    return -1;
}

static int sink_call(void *user, const void *data, size_t len)
{
    input *in = user;
    PyObject *mv = PyMemoryView_FromMemory((char *)data, (Py_ssize_t)len, PyBUF_READ);
    PyObject *r = mv ? PyObject_CallOneArg(in->sink, mv) : NULL;
    if (mv) {
        PyObject *ignored = PyObject_CallMethod(mv, "release", NULL);
        if (!ignored) PyErr_Clear();
        Py_XDECREF(ignored);
        Py_DECREF(mv);
    }
    if (!r) {
        if (!in->pending) in->pending = take_exception();
        else PyErr_Clear();
        return 1;
    }
    Py_DECREF(r);
    return 0;
}

/* src: an int (descriptor), a file object with readinto, or a buffer. */
static int input_init(input *in, PyObject *src)
{
    memset(in, 0, sizeof *in);
    in->fd = -1;
    if (PyLong_Check(src)) {
        long fd = PyLong_AsLong(src);
        if (fd == -1 && PyErr_Occurred()) return -1;
        in->fd = fd > INT_MAX ? -1 : (int)fd;
        if (in->fd < 0) {
            PyErr_SetString(PyExc_ValueError, "negative file descriptor");
            return -1;
        }
        return 0;
    }
    if (PyObject_CheckBuffer(src)) return PyObject_GetBuffer(src, &in->view, PyBUF_SIMPLE);
    if (PyObject_HasAttrString(src, "readinto")) {
        in->file = Py_NewRef(src);
        return 0;
    }
    PyErr_SetString(PyExc_TypeError, "expected a file descriptor, a bytes-like object or a binary file object");
    return -1;
}

static void input_release(input *in)
{
    if (in->view.obj) PyBuffer_Release(&in->view);
    Py_CLEAR(in->file);
    Py_CLEAR(in->pending);
    Py_CLEAR(in->sink);
}

/* The Python exception a callback raised becomes the cause of ours. */
static PyObject *raise_in(npyg_ctx *ctx, input *in, int rc)
{
    PyObject *cause = in->pending;
    in->pending = NULL;
    return raise_ctx(ctx, rc, cause);
}

/* Npy and Zip take the same (source, strict, limits) arguments and may be
 * initialised once only, so both start here. */
static int object_init(npyg_ctx **ctx, input *in, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"source", "strict", "limits", NULL};
    PyObject *src, *limits = Py_None;
    int strict = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|pO", kwlist, &src, &strict, &limits)) return -1;
    if (*ctx) {
        PyErr_SetString(PyExc_RuntimeError, "already initialised");
        return -1;
    }
    *ctx = new_ctx(strict, limits);
    if (!*ctx) return -1;
    return input_init(in, src) < 0 ? -1 : 0;
}

/* ---------------- Npy: one .npy input, opened ---------------- */

typedef struct {
    PyObject_HEAD
    npyg_ctx *ctx;
    input in;
    PyObject *info; /* dict after the header */
} NpyObject;

static void Npy_dealloc(NpyObject *self)
{
    npyg_ctx_free(self->ctx);
    input_release(&self->in);
    Py_XDECREF(self->info);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int Npy_init(NpyObject *self, PyObject *args, PyObject *kw)
{
    if (object_init(&self->ctx, &self->in, args, kw) < 0) return -1;
    int rc;
    input *in = &self->in;
    if (in->fd >= 0) {
        Py_BEGIN_ALLOW_THREADS rc = npyg_open_fd(self->ctx, in->fd);
        Py_END_ALLOW_THREADS
    } else if (in->view.obj) rc = npyg_open_buffer(self->ctx, in->view.buf, (size_t)in->view.len);
    else rc = npyg_open_read(self->ctx, file_read, in);
    if (rc) {
        raise_in(self->ctx, in, rc);
        return -1;
    }
    self->info = info_dict(npyg_get_info(self->ctx));
    return self->info ? 0 : -1;
}

static PyObject *Npy_info(NpyObject *self, PyObject *noargs)
{
    (void)noargs;
    if (!self->info) {
        PyErr_SetString(PyExc_RuntimeError, "not opened");
        return NULL;
    }
    return Py_NewRef(self->info);
}

PyDoc_STRVAR(Npy_read_doc, "read(buffer=None, sink=None) -> info dict\n\n"
                           "Reads the payload into the writable buffer of exactly payload_bytes, or\n"
                           "with buffer None to sink only (a callable given each chunk), and checks\n"
                           "the end of the input. Returns the info dict with trailing_bytes and\n"
                           "warnings complete.");

static PyObject *Npy_read(NpyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"buffer", "sink", NULL};
    PyObject *dst = Py_None, *sinkfn = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|OO", kwlist, &dst, &sinkfn)) return NULL;
    if (!self->ctx) {
        PyErr_SetString(PyExc_RuntimeError, "not opened");
        return NULL;
    }
    input *in = &self->in;
    Py_buffer view = {0};
    if (dst != Py_None && PyObject_GetBuffer(dst, &view, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) < 0) return NULL;
    if (sinkfn != Py_None) {
        Py_XSETREF(in->sink, Py_NewRef(sinkfn));
        npyg_set_payload_sink(self->ctx, sink_call, in);
    } else npyg_set_payload_sink(self->ctx, NULL, NULL);
    int rc;
    void *p = view.obj ? view.buf : NULL;
    size_t n = view.obj ? (size_t)view.len : 0;
    if (!in->file && !in->sink) {
        /* Neither the input nor a sink calls back into Python. */
        Py_BEGIN_ALLOW_THREADS rc = npyg_read_payload(self->ctx, p, n);
        Py_END_ALLOW_THREADS
    } else rc = npyg_read_payload(self->ctx, p, n);
    npyg_set_payload_sink(self->ctx, NULL, NULL);
    if (view.obj) PyBuffer_Release(&view);
    if (rc) return raise_in(self->ctx, in, rc);
    Py_XSETREF(self->info, info_dict(npyg_get_info(self->ctx)));
    return self->info ? Py_NewRef(self->info) : NULL;
}

static PyMethodDef Npy_methods[] = {
    {"info", (PyCFunction)Npy_info, METH_NOARGS, "info() -> dict: the validated header."},
    {"read", (PyCFunction)(void (*)(void))Npy_read, METH_VARARGS | METH_KEYWORDS, Npy_read_doc},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject NpyType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "npyguard._core.Npy",
    .tp_basicsize = sizeof(NpyObject),
    .tp_dealloc = (destructor)Npy_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Npy(source, strict=False, limits=None): a .npy input whose header is validated.",
    .tp_methods = Npy_methods,
    .tp_init = (initproc)Npy_init,
    .tp_new = PyType_GenericNew,
};

/* ---------------- Zip: one .npz archive ---------------- */

typedef struct {
    PyObject_HEAD
    npyg_ctx *ctx;
    npyg_zip *zip;
    input in;
} ZipObject;

static void Zip_close_impl(ZipObject *self)
{
    npyg_zip_close(self->zip);
    self->zip = NULL;
    npyg_ctx_free(self->ctx);
    self->ctx = NULL;
    input_release(&self->in);
}

static void Zip_dealloc(ZipObject *self)
{
    Zip_close_impl(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int Zip_init(ZipObject *self, PyObject *args, PyObject *kw)
{
    if (object_init(&self->ctx, &self->in, args, kw) < 0) return -1;
    if (self->in.file) {
        PyErr_SetString(PyExc_TypeError, "an archive needs a descriptor or a buffer");
        return -1;
    }
    int rc;
    if (self->in.fd >= 0) {
        Py_BEGIN_ALLOW_THREADS rc = npyg_zip_open_fd(self->ctx, self->in.fd, NULL, &self->zip);
        Py_END_ALLOW_THREADS
    } else rc = npyg_zip_open_buffer(self->ctx, self->in.view.buf, (size_t)self->in.view.len, NULL, &self->zip);
    if (rc) {
        raise_ctx(self->ctx, rc, NULL);
        return -1;
    }
    return 0;
}

static int zip_ready(ZipObject *self)
{
    if (self->zip) return 1;
    PyErr_SetString(PyExc_ValueError, "the archive is closed");
    return 0;
}

static PyObject *Zip_members(ZipObject *self, PyObject *noargs)
{
    (void)noargs;
    if (!zip_ready(self)) return NULL;
    size_t n = npyg_zip_count(self->zip);
    PyObject *l = PyList_New((Py_ssize_t)n);
    for (size_t i = 0; l && i < n; i++) {
        const npyg_zip_entry *e = npyg_zip_member(self->zip, i);
        /* Names are bytes as stored; the Python layer decodes them as
           zipfile does (UTF-8 flag, else cp437). */
        PyObject *d = Py_BuildValue("{s:y#,s:I,s:I,s:k,s:K,s:K,s:K,s:K}", "name", e->name, (Py_ssize_t)e->name_len,
                                    "method", e->method, "flags", e->flags, "crc32", (unsigned long)e->crc32,
                                    "compressed_size", (unsigned long long)e->compressed_size, "uncompressed_size",
                                    (unsigned long long)e->uncompressed_size, "header_offset",
                                    (unsigned long long)e->header_offset, "data_offset",
                                    (unsigned long long)e->data_offset);
        if (!d) { Py_CLEAR(l); break; }
        PyList_SET_ITEM(l, (Py_ssize_t)i, d);
    }
    return l;
}

static PyObject *Zip_open_member(ZipObject *self, PyObject *arg)
{
    if (!zip_ready(self)) return NULL;
    Py_ssize_t i = PyLong_AsSsize_t(arg);
    if (i == -1 && PyErr_Occurred()) return NULL;
    if (i < 0) i = (Py_ssize_t)npyg_zip_count(self->zip); /* out of range: the library says so */
    int rc;
    Py_BEGIN_ALLOW_THREADS rc = npyg_zip_open_member(self->zip, (size_t)i);
    Py_END_ALLOW_THREADS
    if (rc) return raise_ctx(self->ctx, rc, NULL);
    const npyg_info *info = npyg_get_info(self->ctx);
    if (!info) Py_RETURN_NONE; /* not .npy: raw bytes, as numpy returns them */
    return info_dict(info);
}

static PyObject *Zip_read_member(ZipObject *self, PyObject *dst)
{
    if (!zip_ready(self)) return NULL;
    Py_buffer view = {0};
    if (dst != Py_None && PyObject_GetBuffer(dst, &view, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) < 0) return NULL;
    int rc;
    void *p = view.obj ? view.buf : NULL;
    size_t n = view.obj ? (size_t)view.len : 0;
    Py_BEGIN_ALLOW_THREADS rc = npyg_zip_read_member(self->zip, p, n);
    Py_END_ALLOW_THREADS
    if (view.obj) PyBuffer_Release(&view);
    if (rc) return raise_ctx(self->ctx, rc, NULL);
    const npyg_info *info = npyg_get_info(self->ctx);
    if (!info) Py_RETURN_NONE;
    return info_dict(info);
}

static PyObject *Zip_close(ZipObject *self, PyObject *noargs)
{
    (void)noargs;
    Zip_close_impl(self);
    Py_RETURN_NONE;
}

static PyMethodDef Zip_methods[] = {
    {"members", (PyCFunction)Zip_members, METH_NOARGS, "members() -> list of dicts, central-directory order."},
    {"open_member", (PyCFunction)Zip_open_member, METH_O,
     "open_member(i) -> info dict, or None for a member that is not .npy."},
    {"read_member", (PyCFunction)Zip_read_member, METH_O,
     "read_member(buffer) -> info dict or None: the open member's payload (or raw bytes) into buffer."},
    {"close", (PyCFunction)Zip_close, METH_NOARGS, "close(): frees the archive reader."},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject ZipType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "npyguard._core.Zip",
    .tp_basicsize = sizeof(ZipObject),
    .tp_dealloc = (destructor)Zip_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Zip(source, strict=False, limits=None): a .npz archive whose structure is checked.",
    .tp_methods = Zip_methods,
    .tp_init = (initproc)Zip_init,
    .tp_new = PyType_GenericNew,
};

/* ---------------- module ---------------- */

static PyObject *worst_case_alloc(PyObject *self, PyObject *limits)
{
    (void)self;
    npyg_limits lim;
    if (parse_limits(limits, &lim) < 0) return NULL;
    return PyLong_FromUnsignedLongLong(npyg_worst_case_alloc(&lim));
}

static PyMethodDef module_methods[] = {
    {"set_error_factory", set_error_factory, METH_O, "set_error_factory(fn): how errors are raised."},
    {"worst_case_alloc", worst_case_alloc, METH_O,
     "worst_case_alloc(limits or None) -> int: the most the parser allocates under these limits."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "npyguard._core", "The C library's binding; use the npyguard package.", -1,
    module_methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__core(void)
{
    if (PyType_Ready(&NpyType) < 0 || PyType_Ready(&ZipType) < 0) return NULL;
    PyObject *m = PyModule_Create(&module_def);
    if (!m) return NULL;
    if (PyModule_AddObjectRef(m, "Npy", (PyObject *)&NpyType) < 0 ||
        PyModule_AddObjectRef(m, "Zip", (PyObject *)&ZipType) < 0 ||
        PyModule_AddStringConstant(m, "library_version", npyg_version_string()) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
