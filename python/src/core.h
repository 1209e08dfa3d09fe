/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the files of npyguard._core share; not installed, not the
 * library's API. _core.c holds the module's table, and each Python type
 * has its file (npy.c, zip.c, ra.c); the load of an HDF5 file is hdf5.c.
 * Beneath them: errors.c raises the library's errors as the package's,
 * input.c makes the context (profile, limits) and the input (descriptor,
 * buffer, file object) of a call, and values.c turns a validated header
 * into Python values.
 */
#ifndef NPYG_PYTHON_CORE_H
#define NPYG_PYTHON_CORE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdbool.h>
#include <stdint.h>

#include "npyguard.h"

/* ---------------- errors.c ---------------- */

/* The exception being raised, taken out of the error indicator. */
PyObject *take_exception(void);
/* The library's error rc on ctx raised as the package's; cause (stolen,
   may be NULL) becomes its __cause__. Returns NULL. */
PyObject *raise_ctx(npyg_ctx *ctx, int rc, PyObject *cause);
/* An UnsafeError being raised is given imports and pickle_complete, from
   a pickle scan's report (NULL: left as it is). */
void set_imports(const npyg_pickle_report *r);
/* The same for an NPYG_EOBJECT raised on a .npy read from a descriptor of
   a regular file or from a buffer, which it scans again. */
void name_imports(int rc, int fd, const void *buf, size_t len);

PyObject *set_error_factory(PyObject *self, PyObject *fn);
PyObject *error_info(PyObject *self, PyObject *arg);
PyObject *error_codes(PyObject *self, PyObject *noargs);

/* ---------------- input.c: limits and contexts ---------------- */

/* The limits of one call, by npyg_limit id: the library's defaults, and
   those the caller named. The names, defaults and ranges are the
   library's table (npyg_limit_info); the Python layer checks them by name
   before a call, so a value refused here is a last line. */
typedef struct limits {
    uint64_t v[NPYG_LIMIT_END_];
} limits;

/* The limits dict (None: the defaults) into l; -1 with an exception. */
int parse_limits(PyObject *dict, limits *l);
/* A context for one input with these limits, or NULL with an exception set. */
npyg_ctx *new_ctx(int strict, const limits *l);
/* A context with the default limits (l: those limits, made already, or
   NULL), from the pool when it holds one. */
npyg_ctx *pool_take(int strict, const limits *l);
/* Back to the pool (a context made with the defaults), else freed. */
void pool_give(npyg_ctx *ctx, int strict);

PyObject *limit_table(PyObject *self, PyObject *noargs);
PyObject *worst_case_alloc(PyObject *self, PyObject *dict);
PyObject *stream_bound(PyObject *self, PyObject *dict);

/* ---------------- input.c: inputs ---------------- */

typedef struct input {
    int fd;            /* >= 0: descriptor */
    Py_buffer view;    /* view.obj: buffer */
    PyObject *file;    /* file object, read through readinto or read */
    int has_readinto;
    uint64_t taken;    /* bytes taken from the file object... */
    uint64_t end;      /* ...which is never read past this (the array's end, once known) */
    PyObject *dst;     /* a memoryview of the buffer being filled, during read */
    Py_buffer dstview;
    PyObject *pending; /* the exception the file object raised */
    PyObject *sink;    /* callable given each payload chunk, or NULL */
    int positional;    /* file is read at offsets (seek, then readinto or read)... */
    uint64_t base;     /* ...from this position of the object... */
    uint64_t size;     /* ...for this many bytes */
} input;

/* The library's pread input over a seekable file object (in->positional). */
long long file_pread(void *user, void *buf, size_t len, uint64_t offset);
/* The library's payload sink, calling in->sink. */
int sink_call(void *user, const void *data, size_t len);
void input_release(input *in);
/* Npy, Zip and Ra take the same (source, strict, limits) arguments and may
   be initialised once only: the context (pool_as: the pool it goes back
   to, or -1) and the input. */
int object_init(npyg_ctx **ctx, int *pool_as, input *in, PyObject *args, PyObject *kw);
/* Sets the context's input to in and calls open (npyg_open, npyg_ra_open),
   without the GIL when it reads a descriptor. */
int open_input(npyg_ctx *ctx, input *in, int (*open)(npyg_ctx *));
/* raise_ctx, with the exception a callback on in raised as the cause. */
PyObject *raise_in(npyg_ctx *ctx, input *in, int rc);

/* ---------------- values.c ---------------- */

PyObject *shape_tuple(uint32_t nd, const uint64_t *dims);
/* ('leaf', '<f8') | ('sub', node, shape) | ('struct', [(name, title, offset, node)], itemsize) */
PyObject *dtype_tree(const npyg_dtype *d);
/* The validated header, as info() gives it. */
PyObject *info_dict(const npyg_info *in);
/* What loading needs of the header, without the strings info() adds. */
PyObject *layout_dict(const npyg_info *in);
/* empty(shape, dtype) for a validated header (dtype: kept[tree], else
   make(tree)), the shape reversed for a Fortran-order payload. */
PyObject *empty_for(const npyg_info *in, PyObject *kept, PyObject *make, PyObject *empty);

/* ---------------- the types and the loads ---------------- */

/* An Npy, and an Ra, which shares its layout and close. */
typedef struct {
    PyObject_HEAD
    npyg_ctx *ctx;
    int pool_as;    /* the pool its context goes back to (strict or not), or -1 */
    input in;
    PyObject *info; /* dict after the header, made when asked */
} NpyObject;

/* An Npy or Ra object's input, set up from its arguments and opened by
   call: 0; the call's code with the exception raised; -1 when the
   arguments are refused. */
int Npy_open_with(NpyObject *self, PyObject *args, PyObject *kw, int (*call)(npyg_ctx *));
void Npy_dealloc(NpyObject *self);
PyObject *Npy_close(NpyObject *self, PyObject *noargs);

extern PyTypeObject NpyType, ZipType, RaType;

/* The definition of one of the module's types: every one is a plain
   object made by PyType_GenericNew and set up by its init. */
#define CORE_TYPE(var, name, object, dealloc, init, methods, doc)                                                \
    PyTypeObject var = {                                                                                        \
        PyVarObject_HEAD_INIT(NULL, 0).tp_name = "npyguard._core." name,                                         \
        .tp_basicsize = sizeof(object),                                                                        \
        .tp_dealloc = (destructor)(dealloc),                                                                   \
        .tp_flags = Py_TPFLAGS_DEFAULT,                                                                        \
        .tp_doc = (doc),                                                                                       \
        .tp_methods = (methods),                                                                               \
        .tp_init = (initproc)(init),                                                                           \
        .tp_new = PyType_GenericNew,                                                                           \
    }

PyObject *load_path(PyObject *self, PyObject *const *a, Py_ssize_t n);
extern const char load_path_doc[];
PyObject *hdf5_load(PyObject *self, PyObject *args, PyObject *kw);
PyObject *storage_rules(PyObject *self, PyObject *noargs);

#endif
