/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * npyguard._core.Ra: a RawArray (.ra) file whose header is validated.
 */
#include "core.h"

/* Ra(source, strict=False, limits=None): a .ra file whose header is
   validated; info() describes it, read(buffer) fills exactly data_bytes
   with the array's bytes in file order and byte order (LZ4 decoded). */

static PyObject *ra_info_dict(const npyg_ra_info *ra)
{
    char type[32];
    npyg_ra_type_name(ra, type, sizeof type);
    PyObject *dims = shape_tuple(ra->ndims, ra->dims);
    if (!dims) return NULL;
    PyObject *r = Py_BuildValue("{s:K,s:K,s:K,s:K,s:O,s:O,s:O,s:K,s:K,s:K,s:K,s:s}", "flags",
                                (unsigned long long)ra->flags, "eltype", (unsigned long long)ra->eltype, "elbyte",
                                (unsigned long long)ra->elbyte, "size", (unsigned long long)ra->size, "dims", dims,
                                "big_endian", ra->big_endian ? Py_True : Py_False, "compressed",
                                ra->compressed ? Py_True : Py_False, "count", (unsigned long long)ra->count,
                                "data_offset", (unsigned long long)ra->data_offset, "data_bytes",
                                (unsigned long long)ra->data_bytes, "metadata_bytes",
                                (unsigned long long)ra->metadata_bytes, "type", type);
    Py_DECREF(dims);
    return r;
}

static int Ra_init(NpyObject *self, PyObject *args, PyObject *kw)
{
    if (Npy_open_with(self, args, kw, npyg_ra_open)) return -1;
    self->info = ra_info_dict(npyg_get_ra_info(self->ctx));
    return self->info ? 0 : -1;
}

static PyObject *Ra_info(NpyObject *self, PyObject *noargs)
{
    (void)noargs;
    if (!self->info) {
        PyErr_SetString(PyExc_RuntimeError, "not opened");
        return NULL;
    }
    return Py_NewRef(self->info);
}

static PyObject *Ra_read(NpyObject *self, PyObject *dst)
{
    if (!self->ctx) {
        PyErr_SetString(PyExc_RuntimeError, "not opened");
        return NULL;
    }
    Py_buffer view = {0};
    if (dst != Py_None && PyObject_GetBuffer(dst, &view, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) < 0) return NULL;
    input *in = &self->in;
    int rc;
    if (!in->file) {
        Py_BEGIN_ALLOW_THREADS rc = npyg_ra_read_data(self->ctx, view.buf, (size_t)view.len);
        Py_END_ALLOW_THREADS
    } else rc = npyg_ra_read_data(self->ctx, view.buf, (size_t)view.len);
    if (view.obj) PyBuffer_Release(&view);
    if (rc) return raise_in(self->ctx, in, rc);
    Py_RETURN_NONE;
}

static PyMethodDef Ra_methods[] = {
    {"info", (PyCFunction)Ra_info, METH_NOARGS, "info() -> dict: the validated header (npyg_ra_info)."},
    {"read", (PyCFunction)Ra_read, METH_O,
     "read(buffer): fills the writable buffer of exactly data_bytes (None when there are none)."},
    {"close", (PyCFunction)Npy_close, METH_NOARGS, "close(): releases the input."},
    {NULL, NULL, 0, NULL},
};

CORE_TYPE(RaType, "Ra", NpyObject, Npy_dealloc, Ra_init, Ra_methods,
          "Ra(source, strict=False, limits=None): a RawArray file whose header is validated.");
