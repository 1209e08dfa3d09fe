/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The library's errors raised as the package's: through a factory the
 * Python layer installs, so each carries the code, name, class, offset
 * and message the C library reported.
 */
#include "core.h"

#include <string.h>
#include <sys/stat.h>

/* The exception factory, callable(code, name, klass, offset, message,
   offset_space):
   set once, at import, by the Python layer. */
static PyObject *factory;

/* The exception being raised, taken out of the error indicator. */
PyObject *take_exception(void)
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

PyObject *raise_ctx(npyg_ctx *ctx, int rc, PyObject *cause)
{
    const npyg_error *e = npyg_last_error(ctx);
    if (e && e->code == rc) return raise_error(rc, e->offset, e->offset_space, e->message, cause);
    return raise_error(rc, 0, NPYG_OFFSET_FILE, npyg_strerror(rc), cause);
}

PyObject *set_error_factory(PyObject *self, PyObject *fn)
{
    (void)self;
    if (!PyCallable_Check(fn)) {
        PyErr_SetString(PyExc_TypeError, "the error factory must be callable");
        return NULL;
    }
    Py_XSETREF(factory, Py_NewRef(fn));
    Py_RETURN_NONE;
}

/* (name, class) of a code, for the errors the Python layer raises itself. */
PyObject *error_info(PyObject *self, PyObject *arg)
{
    (void)self;
    int code = PyLong_AsLong(arg);
    if (code == -1 && PyErr_Occurred()) return NULL;
    return Py_BuildValue("(ss)", npyg_error_name(code), npyg_error_class(code));
}

/* imports and pickle_complete from a report, on the exception being raised. */
void set_imports(const npyg_pickle_report *r)
{
    PyObject *et, *ev, *tb;
    PyErr_Fetch(&et, &ev, &tb);
    PyErr_NormalizeException(&et, &ev, &tb);
    size_t need = r && ev ? npyg_pickle_format_imports(r, NULL, 0) : 0;
    char *names = r && ev ? PyMem_Malloc(need + 1) : NULL;
    if (names) {
        npyg_pickle_format_imports(r, names, need + 1);
        PyObject *v = PyUnicode_DecodeASCII(names, (Py_ssize_t)need, "replace");
        if (!v || PyObject_SetAttrString(ev, "imports", v) < 0 ||
            PyObject_SetAttrString(ev, "pickle_complete", r->status == 0 ? Py_True : Py_False) < 0)
            PyErr_Clear();
        Py_XDECREF(v);
        PyMem_Free(names);
    }
    PyErr_Restore(et, ev, tb);
}

/* {name: code} of every code the library has, from its own names. */
PyObject *error_codes(PyObject *self, PyObject *noargs)
{
    (void)self;
    (void)noargs;
    PyObject *d = PyDict_New();
    for (int code = 0; d && code < NPYG_STATUS_END_; code++) {
        const char *name = npyg_error_name(code);
        if (!strcmp(name, "?")) continue; /* a gap between the groups of codes */
        PyObject *v = PyLong_FromLong(code);
        if (!v || PyDict_SetItemString(d, name, v) < 0) Py_CLEAR(d);
        Py_XDECREF(v);
    }
    return d;
}

/* An UnsafeError (NPYG_EOBJECT, raised) is given what its pickle would
   import, as npyvalidate prints it, from a scan that reads the opcodes
   and runs none: imports (str, "" for none) and pickle_complete. Only
   inputs that can be read again are scanned (a descriptor of a regular
   file, a buffer); a stream's bytes are gone. A failed scan leaves the
   error as it was. */
void name_imports(int rc, int fd, const void *buf, size_t len)
{
    if (rc != NPYG_EOBJECT || (fd < 0 && !buf) || !PyErr_Occurred()) return;
    struct stat st;
    if (fd >= 0 && (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))) return;
    npyg_ctx *pc = npyg_ctx_new(NULL);
    if (pc) {
        Py_BEGIN_ALLOW_THREADS
        if (fd >= 0) npyg_set_input_fd(pc, fd);
        else npyg_set_input_buffer(pc, buf, len);
        npyg_pickle_scan_npy(pc, NULL);
        Py_END_ALLOW_THREADS
    }
    set_imports(pc ? npyg_get_pickle_report(pc) : NULL);
    npyg_ctx_free(pc);
}
