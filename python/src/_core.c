/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * npyguard._core: the CPython binding of the C library, compiled from the
 * library's own sources. It exposes the two-step load (a header parsed and
 * checked, then the payload read into memory the caller allocated for
 * exactly that) and the archive reader; the Python layer (npyguard/
 * __init__.py) turns the results into numpy arrays. Errors are raised
 * through a factory the Python layer installs, so each carries the code,
 * name, class, offset and message the C library reported.
 */
#ifndef NPYG_CLI_PATH
#define NPYG_CLI_PATH "" /* npyvalidate is bundled beside the extension */
#endif
#include "core.h"

static PyObject *sniff(PyObject *self, PyObject *src)
{
    (void)self;
    Py_buffer view;
    if (PyObject_GetBuffer(src, &view, PyBUF_SIMPLE) < 0) return NULL;
    npyg_format f = npyg_sniff_format(view.buf, (size_t)view.len);
    PyBuffer_Release(&view);
    return PyLong_FromLong((long)f);
}

/* detect(fd or bytes-like) -> (code, format, offset, message): npyg_detect,
   the library's one answer to which format an input is, for every entry
   point of the package as for npyvalidate. */
static PyObject *detect(PyObject *self, PyObject *src)
{
    (void)self;
    npyg_ctx *ctx = npyg_ctx_new(NULL);
    if (!ctx) return PyErr_NoMemory();
    npyg_format f = NPYG_FORMAT_UNKNOWN;
    int rc = -1;
    Py_buffer view = {0};
    bool have_view = false;
    if (PyLong_Check(src)) {
        int fd = (int)PyLong_AsLong(src);
        if (!(fd == -1 && PyErr_Occurred())) {
            npyg_set_input_fd(ctx, fd);
            rc = npyg_detect(ctx, &f);
        }
    } else if (PyObject_GetBuffer(src, &view, PyBUF_SIMPLE) == 0) {
        have_view = true;
        npyg_set_input_buffer(ctx, view.buf, (size_t)view.len);
        rc = npyg_detect(ctx, &f);
    }
    PyObject *r = NULL;
    if (rc >= 0) {
        const npyg_error *e = npyg_last_error(ctx);
        r = Py_BuildValue("(iiKs)", rc, (int)f, rc ? (unsigned long long)e->offset : 0ULL, rc ? e->message : "");
    }
    if (have_view) PyBuffer_Release(&view);
    npyg_ctx_free(ctx);
    return r;
}

static PyMethodDef module_methods[] = {
    {"set_error_factory", set_error_factory, METH_O, "set_error_factory(fn): how errors are raised."},
    {"load_path", (PyCFunction)(void (*)(void))load_path, METH_FASTCALL, load_path_doc},
    {"worst_case_alloc", worst_case_alloc, METH_O,
     "worst_case_alloc(limits or None) -> int: the most a .npy parse holds under these limits."},
    {"limits", limit_table, METH_NOARGS, "limits() -> {name: (default, smallest, largest, format, npyvalidate option)}."},
    {"error_info", error_info, METH_O, "error_info(code) -> (name, class)."},
    {"error_codes", error_codes, METH_NOARGS, "error_codes() -> {name: code}: every code of the library."},
    {"sniff", sniff, METH_O, "sniff(bytes-like) -> format: npyg_sniff_format of the first bytes."},
    {"detect", detect, METH_O, "detect(fd or bytes-like) -> (code, format, offset, message): npyg_detect."},
    {"stream_bound", stream_bound, METH_O,
     "stream_bound(limits or None) -> int: the largest archive the zip limits admit."},
    {"hdf5_load", (PyCFunction)(void (*)(void))hdf5_load, METH_VARARGS | METH_KEYWORDS,
     "hdf5_load(fd, strict, limits, helper, kept, make, empty) -> list of records\n"
     "(kind, path, name, target, form, cset, null_space, [array, ...]): npyg_hdf5_load;\n"
     "each array made by empty(shape, dtype), dtype kept[tree] else make(tree)."},
    {"storage_rules", storage_rules, METH_NOARGS,
     "storage_rules() -> dict: the names hdf5storage and MATLAB write (parser/src/hdf5/storage.def):\n"
     "python_types, containers, matlab_classes ((name, numpy type or None, stored type or None), ...),\n"
     "string_attrs, typed_attrs."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "npyguard._core", "The C library's binding; use the npyguard package.", -1,
    module_methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__core(void)
{
    if (PyType_Ready(&NpyType) < 0 || PyType_Ready(&ZipType) < 0 || PyType_Ready(&RaType) < 0) return NULL;
    PyObject *m = PyModule_Create(&module_def);
    if (!m) return NULL;
    if (PyModule_AddObjectRef(m, "Npy", (PyObject *)&NpyType) < 0 ||
        PyModule_AddObjectRef(m, "Zip", (PyObject *)&ZipType) < 0 ||
        PyModule_AddObjectRef(m, "Ra", (PyObject *)&RaType) < 0 ||
        PyModule_AddStringConstant(m, "library_version", npyg_version_string()) < 0 ||
        PyModule_AddStringConstant(m, "cli_path", NPYG_CLI_PATH) < 0 ||
        PyModule_AddIntConstant(m, "LOAD_BYTES_PER_BYTE", NPYG_LOAD_BYTES_PER_BYTE) < 0 ||
        PyModule_AddIntConstant(m, "FORMAT_NPY", NPYG_FORMAT_NPY) < 0 ||
        PyModule_AddIntConstant(m, "FORMAT_NPZ", NPYG_FORMAT_NPZ) < 0 ||
        PyModule_AddIntConstant(m, "FORMAT_RA", NPYG_FORMAT_RA) < 0 ||
        PyModule_AddIntConstant(m, "FORMAT_HDF5", NPYG_FORMAT_HDF5) < 0 ||
        PyModule_AddIntConstant(m, "FORMAT_MAT73", NPYG_FORMAT_MAT73) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
