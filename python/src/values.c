/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A validated header as Python values: the dicts info() and layout()
 * return, the dtype tree the package makes a numpy dtype of, and the
 * empty array a payload is read into.
 */
#include "core.h"

PyObject *shape_tuple(uint32_t nd, const uint64_t *dims)
{
    PyObject *t = PyTuple_New(nd);
    for (uint32_t k = 0; t && k < nd; k++) {
        PyObject *v = PyLong_FromUnsignedLongLong(dims[k]);
        if (!v) { Py_CLEAR(t); break; }
        PyTuple_SET_ITEM(t, k, v);
    }
    return t;
}

PyObject *dtype_tree(const npyg_dtype *d)
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


/* The descr as npyvalidate --json prints it: the library's text. */
static PyObject *descr_json(const npyg_dtype *d)
{
    size_t need = npyg_format_descr_json(d, NULL, 0);
    char *s = PyMem_Malloc(need + 1);
    if (!s) return PyErr_NoMemory();
    npyg_format_descr_json(d, s, need + 1);
    PyObject *r = PyUnicode_FromStringAndSize(s, (Py_ssize_t)need);
    PyMem_Free(s);
    return r;
}

PyObject *info_dict(const npyg_info *in)
{
    size_t need = npyg_format_descr(in->dtype, NULL, 0);
    char *repr = PyMem_Malloc(need + 1);
    if (!repr) return PyErr_NoMemory();
    npyg_format_descr(in->dtype, repr, need + 1);
    PyObject *warnings = PyList_New(0);
    for (unsigned k = 0; warnings && k < 32; k++) {
        const npyg_warning_desc *d = in->warnings & (1u << k) ? npyg_warning_info(NPYG_WARNINGS_NPY, 1u << k) : NULL;
        if (!d) continue;
        PyObject *w = PyUnicode_FromString(d->name);
        if (!w || PyList_Append(warnings, w) < 0) Py_CLEAR(warnings);
        Py_XDECREF(w);
    }
    PyObject *tree = warnings ? dtype_tree(in->dtype) : NULL;
    PyObject *json = tree ? descr_json(in->dtype) : NULL;
    PyObject *shape = json ? shape_tuple(in->ndim, in->shape) : NULL;
    PyObject *r = NULL;
    if (shape)
        r = Py_BuildValue("{s:(ii),s:I,s:K,s:O,s:O,s:s#,s:O,s:O,s:K,s:K,s:K,s:K,s:O}", "version", in->version_major,
                          in->version_minor, "header_len", (unsigned)in->header_len, "data_offset",
                          (unsigned long long)in->data_offset, "descr", tree, "descr_json", json, "descr_repr",
                          repr, (Py_ssize_t)need, "shape", shape, "fortran_order", in->fortran_order ? Py_True : Py_False,
                          "itemsize", (unsigned long long)in->dtype->itemsize, "count",
                          (unsigned long long)in->count, "payload_bytes", (unsigned long long)in->payload_bytes,
                          "trailing_bytes", (unsigned long long)in->trailing_bytes, "warnings", warnings);
    PyMem_Free(repr);
    Py_XDECREF(warnings);
    Py_XDECREF(tree);
    Py_XDECREF(json);
    Py_XDECREF(shape);
    return r;
}

/* What loading needs of the header, without the strings info() adds. */
PyObject *layout_dict(const npyg_info *in)
{
    PyObject *tree = dtype_tree(in->dtype);
    PyObject *shape = tree ? shape_tuple(in->ndim, in->shape) : NULL;
    PyObject *r = NULL;
    if (shape)
        r = Py_BuildValue("{s:I,s:K,s:O,s:O,s:O,s:K,s:K}", "header_len", (unsigned)in->header_len, "data_offset",
                          (unsigned long long)in->data_offset, "descr", tree, "shape", shape, "fortran_order",
                          in->fortran_order ? Py_True : Py_False, "count", (unsigned long long)in->count,
                          "payload_bytes", (unsigned long long)in->payload_bytes);
    Py_XDECREF(tree);
    Py_XDECREF(shape);
    return r;
}

/* The dtype of a validated tree: the package's kept one, else made by
   its maker (which keeps it). */
static PyObject *dtype_for(PyObject *tree, PyObject *kept, PyObject *make)
{
    PyObject *dt = PyDict_GetItemWithError(kept, tree);
    if (dt) return Py_NewRef(dt);
    if (PyErr_Occurred()) {
        if (!PyErr_ExceptionMatches(PyExc_TypeError)) return NULL;
        PyErr_Clear(); /* a struct's fields come as a list: not kept */
    }
    return PyObject_CallOneArg(make, tree);
}

/* empty(shape, dtype) for a validated header (dtype: kept[tree], else
   make(tree)), the shape reversed for a Fortran-order payload, which the
   caller transposes once it is filled. */
PyObject *empty_for(const npyg_info *in, PyObject *kept, PyObject *make, PyObject *empty)
{
    uint64_t rev[64];
    if (in->fortran_order && in->ndim > 64) return PyErr_Format(PyExc_ValueError, "%u dimensions", in->ndim);
    for (uint32_t k = 0; in->fortran_order && k < in->ndim; k++) rev[k] = in->shape[in->ndim - 1 - k];
    PyObject *tree = dtype_tree(in->dtype);
    PyObject *dt = tree ? dtype_for(tree, kept, make) : NULL;
    Py_XDECREF(tree);
    PyObject *shape = dt ? shape_tuple(in->ndim, in->fortran_order ? rev : in->shape) : NULL;
    PyObject *arr = shape ? PyObject_CallFunctionObjArgs(empty, shape, dt, NULL) : NULL;
    Py_XDECREF(shape);
    Py_XDECREF(dt);
    return arr;
}
