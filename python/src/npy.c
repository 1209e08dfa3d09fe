/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * npyguard._core.Npy: one .npy input, opened and validated, then read
 * into memory the caller allocated for exactly its payload; and
 * load_path, a path's .npy array in one call.
 */
#include "core.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

static void Npy_close_impl(NpyObject *self)
{
    if (self->pool_as >= 0) pool_give(self->ctx, self->pool_as);
    else npyg_ctx_free(self->ctx);
    self->ctx = NULL;
    input_release(&self->in);
}

void Npy_dealloc(NpyObject *self)
{
    Npy_close_impl(self);
    Py_XDECREF(self->info);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

int Npy_open_with(NpyObject *self, PyObject *args, PyObject *kw, int (*call)(npyg_ctx *))
{
    self->pool_as = -1;
    if (object_init(&self->ctx, &self->pool_as, &self->in, args, kw) < 0) return -1;
    int rc = open_input(self->ctx, &self->in, call);
    if (rc) raise_in(self->ctx, &self->in, rc);
    return rc;
}

static int Npy_init(NpyObject *self, PyObject *args, PyObject *kw)
{
    input *in = &self->in;
    int rc = Npy_open_with(self, args, kw, npyg_open);
    if (rc > 0) name_imports(rc, in->fd, in->view.obj ? in->view.buf : NULL, (size_t)in->view.len);
    if (rc) return -1;
    const npyg_info *info = npyg_get_info(self->ctx);
    /* A file object is read up to the array's end and no further, as
       numpy reads it: what follows is the caller's (another array, or a
       stream that stays open). */
    if (in->file) in->end = info->data_offset + info->payload_bytes;
    return 0;
}

static PyObject *Npy_layout(NpyObject *self, PyObject *noargs)
{
    (void)noargs;
    const npyg_info *info = self->ctx ? npyg_get_info(self->ctx) : NULL;
    if (!info) {
        PyErr_SetString(PyExc_RuntimeError, "not opened");
        return NULL;
    }
    return layout_dict(info);
}

static PyObject *Npy_info(NpyObject *self, PyObject *noargs)
{
    (void)noargs;
    if (!self->info) { /* after read: trailing_bytes and warnings complete */
        const npyg_info *info = self->ctx ? npyg_get_info(self->ctx) : NULL;
        if (!info) {
            PyErr_SetString(PyExc_RuntimeError, "not opened");
            return NULL;
        }
        self->info = info_dict(info);
    }
    return Py_XNewRef(self->info);
}

PyDoc_STRVAR(Npy_read_doc, "read(buffer=None, sink=None)\n\n"
                           "Reads the payload into the writable buffer of exactly payload_bytes, or\n"
                           "with buffer None to sink only (a callable given each chunk), and checks\n"
                           "the end of the input. info() then has trailing_bytes and warnings\n"
                           "complete.");

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
    Py_buffer *view = &in->dstview;
    if (dst != Py_None) {
        if (PyObject_GetBuffer(dst, view, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) < 0) return NULL;
        /* What a file object is given to fill is this view's slices. */
        in->dst = in->file ? PyMemoryView_FromObject(dst) : NULL;
        if (in->file && !in->dst) {
            PyBuffer_Release(view);
            return NULL;
        }
        if (in->dst) {
            PyObject *flat = PyObject_CallMethod(in->dst, "cast", "s", "B");
            Py_SETREF(in->dst, flat);
            if (!flat) {
                PyBuffer_Release(view);
                return NULL;
            }
        }
    }
    if (sinkfn != Py_None) {
        Py_XSETREF(in->sink, Py_NewRef(sinkfn));
        npyg_set_payload_sink(self->ctx, sink_call, in);
    } else npyg_set_payload_sink(self->ctx, NULL, NULL);
    int rc;
    void *p = dst != Py_None ? view->buf : NULL;
    size_t n = dst != Py_None ? (size_t)view->len : 0;
    if (!in->file && !in->sink) {
        /* Neither the input nor a sink calls back into Python. */
        Py_BEGIN_ALLOW_THREADS rc = npyg_read_payload(self->ctx, p, n);
        Py_END_ALLOW_THREADS
    } else rc = npyg_read_payload(self->ctx, p, n);
    npyg_set_payload_sink(self->ctx, NULL, NULL);
    Py_CLEAR(in->dst);
    if (dst != Py_None) PyBuffer_Release(view);
    if (rc) return raise_in(self->ctx, in, rc);
    Py_CLEAR(self->info); /* info() makes it again, complete */
    Py_RETURN_NONE;
}

PyObject *Npy_close(NpyObject *self, PyObject *noargs)
{
    (void)noargs;
    Npy_close_impl(self);
    Py_RETURN_NONE;
}

static PyMethodDef Npy_methods[] = {
    {"info", (PyCFunction)Npy_info, METH_NOARGS, "info() -> dict: the validated header."},
    {"layout", (PyCFunction)Npy_layout, METH_NOARGS,
     "layout() -> dict: what loading needs of the header (descr, shape, fortran_order, count, payload_bytes,\n"
     "data_offset, header_len)."},
    {"read", (PyCFunction)(void (*)(void))Npy_read, METH_VARARGS | METH_KEYWORDS, Npy_read_doc},
    {"close", (PyCFunction)Npy_close, METH_NOARGS, "close(): releases the input (a buffer, a file object)."},
    {NULL, NULL, 0, NULL},
};

CORE_TYPE(NpyType, "Npy", NpyObject, Npy_dealloc, Npy_init, Npy_methods,
          "Npy(source, strict=False, limits=None): a .npy input whose header is validated.");

/* ---------------- a path's .npy array in one call ---------------- */

/* The array of an opened .npy, read into an array of its own made by
   empty(shape, dtype): what numpy.load returns for a regular file, a
   Fortran-order payload as the transpose numpy makes. NULL and no
   exception when the general path is to load it (no payload, more
   dimensions than numpy holds, an array this process cannot allocate). */
static PyObject *fill_array(npyg_ctx *ctx, PyObject *const *a)
{
    const npyg_info *in = npyg_get_info(ctx);
    long numpy_dims = PyLong_AsLong(a[5]);
    if (!in->payload_bytes || numpy_dims < 0 || numpy_dims > 64 || in->ndim > (uint32_t)numpy_dims) {
        PyErr_Clear();
        return NULL;
    }
    PyObject *arr = empty_for(in, a[2], a[3], a[4]);
    if (!arr) {
        if (PyErr_ExceptionMatches(PyExc_MemoryError)) PyErr_Clear(); /* raised as the package's error */
        return NULL;
    }
    Py_buffer view;
    if (PyObject_GetBuffer(arr, &view, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) < 0) {
        Py_DECREF(arr);
        return NULL;
    }
    int rc;
    Py_BEGIN_ALLOW_THREADS rc = npyg_read_payload(ctx, view.buf, (size_t)view.len);
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&view);
    if (rc) {
        Py_DECREF(arr);
        return raise_ctx(ctx, rc, NULL);
    }
    if (in->fortran_order) Py_SETREF(arr, PyObject_CallMethod(arr, "transpose", NULL));
    return arr;
}

/* A regular file of at most SMALL_FILE bytes, read whole in one call:
   the library then parses it as a buffer, and a small .npy costs four
   system calls (open, fstat, pread, close) rather than six (the file
   input's lseek for its position, and a second pread for a payload past
   the 2 KiB it reads first). Larger files, other kinds of file and
   failed reads are left to the library's file input, which says what is
   wrong with them. */
#define SMALL_FILE 65536
typedef struct {
    char *buf;
    size_t len;
} small_file;

static bool read_small(int fd, small_file *f)
{
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > SMALL_FILE) return false;
    /* One byte more than fstat said is asked for: getting it means the
       file grew since, and the file input takes it as it is. Getting
       fewer than the size means it shrank: read on to its end. */
    size_t size = (size_t)st.st_size, got = 0;
    if (!(f->buf = PyMem_RawMalloc(size + 1))) return false;
    for (;;) {
        ssize_t r = pread(fd, f->buf + got, size + 1 - got, (off_t)got);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0 || got + (size_t)r > size) {
            PyMem_RawFree(f->buf);
            f->buf = NULL;
            return false;
        }
        got += (size_t)r;
        if (r == 0 || got == size) break;
    }
    f->len = got;
    return true;
}

const char load_path_doc[] = PyDoc_STR(
    "load_path(path, strict, kept, make, empty, numpy_dims) -> ndarray or None\n\n"
    "The .npy array at path with the default limits, in one call: opened, validated,\n"
    "read into empty(shape, dtype) (dtype: kept[tree], else make(tree)) and closed.\n"
    "None when it is not a .npy file, or an array the general path loads.");

PyObject *load_path(PyObject *self, PyObject *const *a, Py_ssize_t n)
{
    (void)self;
    PyObject *path = NULL;
    if (n != 6) {
        PyErr_SetString(PyExc_TypeError, "load_path takes 6 arguments");
        return NULL;
    }
    int strict = PyObject_IsTrue(a[1]);
    if (strict < 0 || !PyUnicode_FSConverter(a[0], &path)) return NULL;
    int fd;
    Py_BEGIN_ALLOW_THREADS fd = open(PyBytes_AS_STRING(path), O_RDONLY | O_CLOEXEC);
    Py_END_ALLOW_THREADS
    if (fd < 0) {
        Py_DECREF(path);
        return PyErr_SetFromErrnoWithFilenameObject(PyExc_OSError, a[0]);
    }
    Py_DECREF(path);
    /* A FIFO, a device, a socket: the package reads it as a stream, whose
       reads give way to Ctrl-C; the library's would wait on. */
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        Py_RETURN_NONE;
    }
    npyg_ctx *ctx = pool_take(strict, NULL);
    PyObject *arr = NULL;
    if (ctx) {
        small_file small = {NULL, 0};
        int rc;
        Py_BEGIN_ALLOW_THREADS
        rc = read_small(fd, &small) ? npyg_set_input_buffer(ctx, small.buf, small.len) : npyg_set_input_fd(ctx, fd);
        if (!rc) rc = npyg_open(ctx);
        Py_END_ALLOW_THREADS
        if (!rc) arr = fill_array(ctx, a);
        else if (rc != NPYG_EMAGIC) {
            raise_ctx(ctx, rc, NULL);
            name_imports(rc, small.buf ? -1 : fd, small.buf, small.len);
        }
        pool_give(ctx, strict);
        PyMem_RawFree(small.buf);
    }
    close(fd);
    if (arr || PyErr_Occurred()) return arr;
    Py_RETURN_NONE;
}
