/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hdf5_load: an HDF5 or MAT v7.3 file loaded through the library's
 * sandboxed helper, every value an array of the caller's made before
 * its validated payload fills it.
 */
#include "core.h"

#include <string.h>
#include <unistd.h>

/* The records npyg_hdf5_load hands its sink, as Python values; every
   value an array made by empty(shape, dtype) (dtype: kept[tree], else
   make(tree)) of exactly the validated size, which the payload fills. */
typedef struct {
    PyObject *records;  /* list, NULL once something failed */
    PyObject *values;   /* the last record's list of arrays */
    PyObject *kept, *make, *empty;
} h5load;

static PyObject *bytes_or_none(const char *s)
{
    if (s) return PyBytes_FromString(s);
    Py_RETURN_NONE;
}

/* The callbacks run inside the load, which waits for the child without
   the GIL: each takes it for its own work. */
static int h5_object_locked(h5load *h, const npyg_hdf5_item *it)
{
    if (!h->records) return 1;
    PyObject *vals = PyList_New(0);
    PyObject *rec = vals ? Py_BuildValue("(syNNzziN)", npyg_hdf5_kind_name(it->kind), it->path, bytes_or_none(it->name),
                                         bytes_or_none(it->target), it->form, it->cset, it->null_space, vals)
                         : NULL;
    if (!rec || PyList_Append(h->records, rec) < 0) {
        Py_XDECREF(rec);
        Py_CLEAR(h->records);
        return 1;
    }
    h->values = vals; /* borrowed: the record holds it */
    Py_DECREF(rec);
    return 0;
}

static int h5_object(void *user, const npyg_hdf5_item *it)
{
    PyGILState_STATE g = PyGILState_Ensure();
    int rc = h5_object_locked(user, it);
    PyGILState_Release(g);
    return rc;
}

static int h5_value_locked(h5load *h, const npyg_info *in, void **buf)
{
    if (!h->records || !h->values) return 1;
    if (in->payload_bytes > (uint64_t)PY_SSIZE_T_MAX) {
        PyErr_NoMemory();
        Py_CLEAR(h->records);
        return 1;
    }
    /* the library takes no Fortran-order value from the child */
    PyObject *arr = empty_for(in, h->kept, h->make, h->empty);
    Py_buffer view;
    int bad = !arr || PyObject_GetBuffer(arr, &view, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) < 0;
    if (!bad) {
        /* the payload is written where this points, once this returns:
           the array, held by the record, keeps it */
        *buf = view.buf;
        bad = (uint64_t)view.len != in->payload_bytes;
        if (bad)
            PyErr_Format(PyExc_SystemError, "an array of %zd bytes for a value of %llu", view.len,
                         (unsigned long long)in->payload_bytes);
        PyBuffer_Release(&view);
    }
    bad = bad || PyList_Append(h->values, arr) < 0;
    Py_XDECREF(arr);
    if (bad) Py_CLEAR(h->records);
    return bad;
}

static int h5_value(void *user, unsigned index, const npyg_info *in, void **buf)
{
    (void)index;
    PyGILState_STATE g = PyGILState_Ensure();
    int rc = h5_value_locked(user, in, buf);
    PyGILState_Release(g);
    return rc;
}

/* A failed load keeps nothing. */
static void h5_end(void *user, int rc)
{
    h5load *h = user;
    PyGILState_STATE g = PyGILState_Ensure();
    if (rc) Py_CLEAR(h->records);
    PyGILState_Release(g);
}

/* One context kept between loads, for its helper process (starting one
   maps libhdf5 and costs some 70 ms; a file through a running helper, a
   few ms). One load at a time uses it (busy, changed with the GIL held);
   a load that finds it busy runs on a context of its own. It is replaced
   when the profile, limits or helper change. A process forked since it
   was made forgets it without ending it: the helper is its parent's. */
static struct {
    int busy;
    npyg_ctx *ctx;
    long pid;
    int strict;
    limits l;
    char helper[4096];
} h5_kept;

static npyg_ctx *h5_context(int strict, const limits *l, const char *helper)
{
    if (h5_kept.ctx && h5_kept.pid != (long)getpid()) h5_kept.ctx = NULL;
    if (h5_kept.ctx && h5_kept.strict == strict && !memcmp(&h5_kept.l, l, sizeof *l) &&
        !strcmp(h5_kept.helper, helper ? helper : ""))
        return h5_kept.ctx;
    npyg_ctx_free(h5_kept.ctx);
    h5_kept.ctx = NULL;
    if (helper && strlen(helper) >= sizeof h5_kept.helper) {
        PyErr_SetString(PyExc_ValueError, "the helper's path is too long");
        return NULL;
    }
    npyg_ctx *ctx = new_ctx(strict, l);
    if (!ctx) return NULL;
    int rc = helper ? npyg_hdf5_set_helper(ctx, helper) : 0;
    if (rc) {
        raise_ctx(ctx, rc, NULL);
        npyg_ctx_free(ctx);
        return NULL;
    }
    h5_kept.ctx = ctx;
    h5_kept.pid = (long)getpid();
    h5_kept.strict = strict;
    h5_kept.l = *l;
    snprintf(h5_kept.helper, sizeof h5_kept.helper, "%s", helper ? helper : "");
    return ctx;
}

/* Asked by the load every NPYG_HDF5_INTERRUPT_MS while it waits for the
   child, without the GIL: a signal handler that raised (Ctrl-C's
   KeyboardInterrupt) stops the load, its exception left set for the
   caller to raise. */
static int h5_interrupt(void *user)
{
    (void)user;
    PyGILState_STATE g = PyGILState_Ensure();
    int stop = PyErr_Occurred() != NULL || PyErr_CheckSignals() < 0;
    PyGILState_Release(g);
    return stop;
}

PyObject *hdf5_load(PyObject *self, PyObject *args, PyObject *kw)
{
    (void)self;
    static char *kwlist[] = {"fd", "strict", "limits", "helper", "kept", "make", "empty", NULL};
    int fd, strict;
    PyObject *ldict, *kept, *make, *empty;
    const char *helper;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "ipOzO!OO", kwlist, &fd, &strict, &ldict, &helper, &PyDict_Type,
                                     &kept, &make, &empty))
        return NULL;
    limits l;
    if (parse_limits(ldict, &l) < 0) return NULL;
    int own = h5_kept.busy;
    npyg_ctx *ctx = own ? new_ctx(strict, &l) : h5_context(strict, &l, helper);
    if (!ctx) return NULL;
    int rc = own && helper ? npyg_hdf5_set_helper(ctx, helper) : 0;
    h5load h = {PyList_New(0), NULL, kept, make, empty};
    if (!h.records) {
        if (own) npyg_ctx_free(ctx);
        return NULL;
    }
    npyg_hdf5_sink sink = {h5_object, h5_value, h5_end, &h};
    if (!own) h5_kept.busy = 1;
    if (!rc) {
        npyg_hdf5_set_interrupt(ctx, h5_interrupt, NULL);
        Py_BEGIN_ALLOW_THREADS
        npyg_set_input_fd(ctx, fd);
        rc = npyg_hdf5_load(ctx, NULL, &sink); /* the context's HDF5 limits */
        Py_END_ALLOW_THREADS
        npyg_hdf5_set_interrupt(ctx, NULL, NULL);
    }
    if (!own) h5_kept.busy = 0;
    PyObject *r = NULL;
    if (PyErr_Occurred()) Py_CLEAR(h.records);
    else if (rc) raise_ctx(ctx, rc, NULL);
    else if (!h.records) PyErr_NoMemory();
    else r = h.records, h.records = NULL;
    Py_XDECREF(h.records);
    if (own) npyg_ctx_free(ctx);
    return r;
}

/* ---------------- hdf5storage's and MATLAB's names ---------------- */

/* A tuple of the strings (NULL: None) of a list of n. */
static PyObject *str_tuple(const char *const *v, size_t n)
{
    PyObject *t = PyTuple_New((Py_ssize_t)n);
    for (size_t i = 0; t && i < n; i++) {
        PyObject *s = v[i] ? PyUnicode_FromString(v[i]) : Py_NewRef(Py_None);
        if (!s) Py_CLEAR(t);
        else PyTuple_SET_ITEM(t, (Py_ssize_t)i, s);
    }
    return t;
}

#define COUNT(a) (sizeof a / sizeof a[0])

PyObject *storage_rules(PyObject *self, PyObject *noargs)
{
    (void)self;
    (void)noargs;
    static const char *const python_types[] = {
#define NPYG_PYTHON_TYPE(name) name,
#include "hdf5/storage.def"
    };
    static const char *const containers[] = {
#define NPYG_CONTAINER(name) name,
#include "hdf5/storage.def"
    };
    static const char *const matlab_classes[][3] = {
#define NPYG_MATLAB_CLASS(name, numpy, stored) {name, numpy, stored},
#include "hdf5/storage.def"
    };
    static const char *const string_attrs[] = {
#define NPYG_STRING_ATTR(name, field) name,
#include "hdf5/storage.def"
    };
    static const char *const typed_attrs[] = {
#define NPYG_TYPED_ATTR(name) name,
#include "hdf5/storage.def"
    };
    PyObject *classes = PyTuple_New((Py_ssize_t)COUNT(matlab_classes));
    for (size_t i = 0; classes && i < COUNT(matlab_classes); i++) {
        PyObject *row = str_tuple(matlab_classes[i], 3);
        if (!row) Py_CLEAR(classes);
        else PyTuple_SET_ITEM(classes, (Py_ssize_t)i, row);
    }
    if (!classes) return NULL;
    return Py_BuildValue("{s:N,s:N,s:N,s:N,s:N}", "python_types", str_tuple(python_types, COUNT(python_types)),
                         "containers", str_tuple(containers, COUNT(containers)), "matlab_classes", classes,
                         "string_attrs", str_tuple(string_attrs, COUNT(string_attrs)), "typed_attrs",
                         str_tuple(typed_attrs, COUNT(typed_attrs)));
}
