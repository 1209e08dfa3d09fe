/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * npyguard._core.Zip: one .npz archive, its structure checked, its
 * members read whole under the archive's lock.
 */
#include "core.h"

/* One archive may be read from many threads: each member read (open,
   then payload) runs under the object's lock, taken with the GIL
   released so that a thread holding the lock can always get the GIL;
   close() takes the same lock and so waits for the read in progress. */
typedef struct {
    PyObject_HEAD
    npyg_ctx *ctx;
    npyg_zip *zip;
    input in;
    PyThread_type_lock lock;
} ZipObject;

static void zip_lock(ZipObject *self)
{
    if (PyThread_acquire_lock(self->lock, NOWAIT_LOCK)) return;
    Py_BEGIN_ALLOW_THREADS PyThread_acquire_lock(self->lock, WAIT_LOCK);
    Py_END_ALLOW_THREADS
}

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
    Zip_close_impl(self); /* no reader left: each holds a reference */
    if (self->lock) PyThread_free_lock(self->lock);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int Zip_init(ZipObject *self, PyObject *args, PyObject *kw)
{
    if (!self->lock && !(self->lock = PyThread_allocate_lock())) {
        PyErr_NoMemory();
        return -1;
    }
    int unpooled; /* an archive's context is its own until the archive closes */
    if (object_init(&self->ctx, &unpooled, &self->in, args, kw) < 0) return -1;
    if (self->in.file && !self->in.positional) {
        PyErr_SetString(PyExc_TypeError, "an archive needs a descriptor, a buffer or a seekable file object");
        return -1;
    }
    int rc;
    if (self->in.positional) {
        rc = npyg_set_input_pread(self->ctx, file_pread, &self->in, self->in.size);
        if (!rc) {
            Py_BEGIN_ALLOW_THREADS rc = npyg_zip_open(self->ctx, NULL, &self->zip);
            Py_END_ALLOW_THREADS
        }
        if (rc) {
            raise_in(self->ctx, &self->in, rc);
            return -1;
        }
        return 0;
    }
    if (self->in.fd >= 0) {
        Py_BEGIN_ALLOW_THREADS
        npyg_set_input_fd(self->ctx, self->in.fd);
        rc = npyg_zip_open(self->ctx, NULL, &self->zip);
        Py_END_ALLOW_THREADS
    } else {
        npyg_set_input_buffer(self->ctx, self->in.view.buf, (size_t)self->in.view.len);
        rc = npyg_zip_open(self->ctx, NULL, &self->zip);
    }
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
        /* The name as zipfile decodes it, from the library; a cp437 byte
           takes at most three UTF-8 bytes. */
        size_t cap = 3 * e->name_len + 1;
        char *name = PyMem_Malloc(cap);
        if (!name) { PyErr_NoMemory(); Py_CLEAR(l); break; }
        size_t len = npyg_zip_member_name(self->zip, i, name, cap);
        PyObject *d = Py_BuildValue("{s:s#,s:y#,s:I,s:I,s:k,s:K,s:K,s:K,s:K}", "name", name, (Py_ssize_t)len,
                                    "name_bytes", e->name, (Py_ssize_t)e->name_len, "method", e->method, "flags",
                                    e->flags, "crc32", (unsigned long)e->crc32,
                                    "compressed_size", (unsigned long long)e->compressed_size, "uncompressed_size",
                                    (unsigned long long)e->uncompressed_size, "header_offset",
                                    (unsigned long long)e->header_offset, "data_offset",
                                    (unsigned long long)e->data_offset);
        PyMem_Free(name);
        if (!d) { Py_CLEAR(l); break; }
        PyList_SET_ITEM(l, (Py_ssize_t)i, d);
    }
    return l;
}

/* Member i, opened and read under the lock. make(info, size) is given the
   info dict (None for a member that is not .npy) and the bytes to come,
   and returns (result, buffer): the buffer is filled and result returned. */
static PyObject *zip_read_locked(ZipObject *self, Py_ssize_t i, PyObject *make)
{
    if (!zip_ready(self)) return NULL;
    size_t count = npyg_zip_count(self->zip);
    int rc;
    Py_BEGIN_ALLOW_THREADS rc = npyg_zip_open_member(self->zip, i < 0 ? count : (size_t)i);
    Py_END_ALLOW_THREADS
    if (rc) {
        raise_in(self->ctx, &self->in, rc);
        if (rc == NPYG_EOBJECT && i >= 0 && PyErr_Occurred()) { /* what the member's pickle would import */
            /* the scan may read through the caller's file object: not with
               the exception set */
            npyg_pickle_report *r = NULL;
            PyObject *et, *ev, *tb;
            PyErr_Fetch(&et, &ev, &tb);
            Py_BEGIN_ALLOW_THREADS npyg_zip_scan_member_pickle(self->zip, (size_t)i, NULL, &r);
            Py_END_ALLOW_THREADS
            Py_CLEAR(self->in.pending);
            PyErr_Restore(et, ev, tb);
            set_imports(r);
            npyg_pickle_report_free(self->ctx, r);
        }
        return NULL;
    }
    const npyg_info *info = npyg_get_info(self->ctx);
    PyObject *d = info ? info_dict(info) : Py_NewRef(Py_None);
    if (!d) return NULL;
    uint64_t size = info ? info->payload_bytes : npyg_zip_member(self->zip, (size_t)i)->uncompressed_size;
    PyObject *made = PyObject_CallFunction(make, "OK", d, (unsigned long long)size);
    Py_DECREF(d);
    PyObject *result, *dst;
    if (!made || !PyArg_ParseTuple(made, "OO", &result, &dst)) {
        Py_XDECREF(made);
        return NULL;
    }
    Py_buffer view = {0};
    if (dst != Py_None && PyObject_GetBuffer(dst, &view, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) < 0) {
        Py_DECREF(made);
        return NULL;
    }
    void *p = view.obj ? view.buf : NULL;
    size_t n = view.obj ? (size_t)view.len : 0;
    Py_BEGIN_ALLOW_THREADS rc = npyg_zip_read_member(self->zip, p, n);
    Py_END_ALLOW_THREADS
    if (view.obj) PyBuffer_Release(&view);
    result = rc ? raise_in(self->ctx, &self->in, rc) : Py_NewRef(result);
    Py_DECREF(made);
    return result;
}

static PyObject *Zip_read(ZipObject *self, PyObject *args)
{
    Py_ssize_t i;
    PyObject *make;
    if (!PyArg_ParseTuple(args, "nO:read", &i, &make)) return NULL;
    zip_lock(self);
    PyObject *r = zip_read_locked(self, i, make);
    PyThread_release_lock(self->lock);
    return r;
}

static PyObject *Zip_close(ZipObject *self, PyObject *noargs)
{
    (void)noargs;
    zip_lock(self);
    Zip_close_impl(self);
    PyThread_release_lock(self->lock);
    Py_RETURN_NONE;
}

static PyMethodDef Zip_methods[] = {
    {"members", (PyCFunction)Zip_members, METH_NOARGS, "members() -> list of dicts, central-directory order."},
    {"read", (PyCFunction)Zip_read, METH_VARARGS,
     "read(i, make) -> result: member i read whole, under the archive's lock; make(info or None, size)\n"
     "returns (result, buffer to fill)."},
    {"close", (PyCFunction)Zip_close, METH_NOARGS, "close(): frees the archive reader, once no read is running."},
    {NULL, NULL, 0, NULL},
};

CORE_TYPE(ZipType, "Zip", ZipObject, Zip_dealloc, Zip_init, Zip_methods,
          "Zip(source, strict=False, limits=None): a .npz archive whose structure is checked.");
