/* SPDX-License-Identifier: BSD-3-Clause */
/* The hdf5storage check: the attributes hdf5storage (and MATLAB) write on
 * an object, read when they are small, and checked against each other and
 * against the object's stored type and shape. A disagreement makes a
 * reader misread the value; walk.c reports it as a warning, or an error
 * under the strict profile.
 */
#define _GNU_SOURCE
#include "h5storage.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* hdf5storage's and MATLAB's names (storage.def). */
static const char *const python_types[] = {
#define NPYG_PYTHON_TYPE(name) name,
#include "storage.def"
    NULL};

static const char *const containers[] = {
#define NPYG_CONTAINER(name) name,
#include "storage.def"
    NULL};

/* "scalar, ndarray, ...", for a message (past the first ", ") */
static const char container_list[] = ""
#define NPYG_CONTAINER(name) ", " name
#include "storage.def"
    ;

static const struct matlab_class {
    const char *name, *numpy, *stored;
} matlab_classes[] = {
#define NPYG_MATLAB_CLASS(name, numpy, stored) {name, numpy, stored},
#include "storage.def"
};
#define MATLAB_CLASSES (sizeof matlab_classes / sizeof matlab_classes[0])

static const struct matlab_class *fundamental_class(const char *name)
{
    for (size_t i = 0; i < MATLAB_CLASSES; i++)
        if (!strcmp(name, matlab_classes[i].name)) return &matlab_classes[i];
    return NULL;
}

static void problem(sattrs *s, const char *fmt, ...) NPYG__PRINTF(2, 3);
static void problem(sattrs *s, const char *fmt, ...)
{
    if (s->problem[0]) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->problem, sizeof s->problem, fmt, ap);
    va_end(ap);
}

/* A string attribute as h5py hands it to hdf5storage: one string (a scalar
   dataspace: h5py returns an array for any other, and hdf5storage takes an
   array as absent), fixed or variable length, read with its own type, so
   in its own character set (a conversion from UTF-8, h5py's default for
   str, to ASCII fails). walk.c has checked that its type and space can be
   had. NULL when out holds the value, else why it cannot be had. */
static const char *read_str_attr(hid_t a, char *out, size_t size)
{
    const char *why = NULL;
    hid_t t = H5Aget_type(a), sp = H5Aget_space(a);
    if (H5Tget_class(t) != H5T_STRING) {
        why = "is not a string (hdf5storage takes it as absent)";
    } else if (H5Sget_simple_extent_npoints(sp) != 1 || H5Sget_simple_extent_ndims(sp) != 0) {
        why = "is not a single string (an array, or no value): hdf5storage takes it as absent";
    } else if (H5Tis_variable_str(t) > 0) {
        char *v = NULL;
        if (H5Aread(a, t, &v) < 0 || !v) why = "cannot be read";
        else if (strlen(v) >= size) why = "is too long for any value hdf5storage or MATLAB writes";
        else memcpy(out, v, strlen(v) + 1);
        if (v) H5free_memory(v);
    } else {
        /* The stored bytes as they are: h5py keeps a NUL inside the value
           (numpy strips only trailing ones), libhdf5's conversion to a
           C string would end it there. */
        size_t n = H5Tget_size(t);
        if (n >= size) {
            why = "is too long for any value hdf5storage or MATLAB writes";
        } else if (H5Aread(a, t, out) < 0) {
            why = "cannot be read";
        } else {
            while (n > 0 && out[n - 1] == '\0') n--;
            out[n] = '\0';
            if (memchr(out, '\0', n)) why = "has a NUL byte inside its value";
        }
    }
    H5Tclose(t);
    H5Sclose(sp);
    if (why) out[0] = '\0';
    return why;
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


void npyg__h5s_init(sattrs *s)
{
    memset(s, 0, sizeof *s);
    s->shape_n = -1;
    s->python_empty = s->matlab_empty = -1;
    s->int_decode = -1;
    s->object_decode = -1;
}

/* One of the four string attributes hdf5storage reads to decide what an
   object is: one it cannot read (or reads while npyguard cannot) would
   make the check pass over what the reader does, so it is a finding. */
static void take_str(sattrs *s, hid_t a, const char *name, bool small, char *out, size_t size, bool *has)
{
    const char *why = small ? read_str_attr(a, out, size) : "is larger than 4096 bytes";
    *has = !why;
    if (why) problem(s, "%s %s", name, why);
}

void npyg__h5s_take(sattrs *s, hid_t a, const char *name, bool small)
{
#define NPYG_STRING_ATTR(attr, field)                                                   \
    if (!strcmp(name, attr)) {                                                          \
        take_str(s, a, name, small, s->field, sizeof s->field, &s->has_##field);        \
        return;                                                                         \
    }
#include "storage.def"
    if (!strcmp(name, "H5PATH") && small) /* read by no reader: never a finding */
        s->has_h5path = !read_str_attr(a, s->h5path, sizeof s->h5path);
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
    } else if (!strcmp(name, "MATLAB_object_decode")) {
        if (!read_int_attr(a, &s->object_decode, NULL, NULL))
            problem(s, "MATLAB_object_decode is not an integer");
    } else if (!strcmp(name, "MATLAB_sparse")) {
        long long rows = -1;
        s->has_sparse = true;
        if (!read_int_attr(a, &rows, NULL, NULL) || rows < 0)
            problem(s, "MATLAB_sparse is not a row count (an integer from 0)");
    } else if (!strcmp(name, "Python.Fields")) {
        s->has_python_fields = true;
    } else if (!strcmp(name, "MATLAB_fields")) {
        s->has_matlab_fields = true;
    }
}

static bool in_list(const char *v, const char *const *list)
{
    for (; *list; list++)
        if (!strcmp(v, *list)) return true;
    return false;
}

/* A classdef class's name as MATLAB writes it: identifiers (a letter, then
   letters, digits, underscores) joined by dots: "string", "FileWrapper__",
   "containers.Map", "TestClasses.EnumClass". */
static bool object_class_name(const char *c)
{
    for (;;) {
        if (!((*c >= 'A' && *c <= 'Z') || (*c >= 'a' && *c <= 'z'))) return false;
        while ((*c >= 'A' && *c <= 'Z') || (*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '_')
            c++;
        if (!*c) return true;
        if (*c++ != '.') return false;
    }
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

/* hdf5storage's MATLAB_class for a numpy dtype name; NULL: none. Text is
   char; complexN takes the class of its two floats of N/2 bits; any other
   type the first class whose elements it is. */
static const char *matlab_class_of(const char *u)
{
    if (!strncmp(u, "bytes", 5) || !strncmp(u, "str", 3)) return "char";
    char half[32];
    if (!strncmp(u, "complex", 7)) {
        snprintf(half, sizeof half, "float%lu", strtoul(u + 7, NULL, 10) / 2);
        u = half;
    }
    for (size_t i = 0; i < MATLAB_CLASSES; i++)
        if (matlab_classes[i].numpy && !strcmp(u, matlab_classes[i].numpy)) return matlab_classes[i].name;
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

void npyg__h5s_check(sattrs *s, bool dataset, const char *actual, uint64_t itemsize, int ndim,
                     const hsize_t *dims, const char *parent)
{
    (void)parent;
    if (s->has_python_type && !in_list(s->python_type, python_types))
        problem(s, "Python.Type '%s' is not a type hdf5storage writes", s->python_type);
    if (s->has_underlying && !known_underlying(s->underlying))
        problem(s, "Python.numpy.UnderlyingType '%s' is not a numpy type hdf5storage writes", s->underlying);
    if (s->has_container && !in_list(s->container, containers))
        problem(s, "Python.numpy.Container '%s' is not one of %s", s->container, container_list + 2);
    /* MATLAB_object_decode: 1 a function handle, 2 an old-style object, 3 an
       opaque one (classdef, Java, COM) whose data lives under /#subsystem# */
    bool object = s->object_decode == 2 || s->object_decode == 3;
    if (s->object_decode != -1 && !s->has_matlab_class)
        problem(s, "MATLAB_object_decode without a MATLAB_class");
    else if (s->object_decode != -1 && s->object_decode != 1 && !object)
        problem(s, "MATLAB_object_decode is %lld, not 1 (function handle), 2 (object) or 3 (opaque object)",
                s->object_decode);
    else if (s->object_decode == 1 && strcmp(s->matlab_class, "function_handle"))
        problem(s, "MATLAB_object_decode 1 (a function handle) on MATLAB_class '%s'", s->matlab_class);
    bool named = s->has_matlab_class && !fundamental_class(s->matlab_class);
    if (named && !object_class_name(s->matlab_class))
        problem(s, "MATLAB_class '%s' is not a MATLAB class", s->matlab_class);
    else if (named && !object)
        problem(s, "MATLAB_class '%s' is no fundamental class, and no MATLAB_object_decode 2 or 3 "
                   "makes the object an instance of it", s->matlab_class);
    if (s->has_sparse && dataset)
        problem(s, "MATLAB_sparse on a dataset: MATLAB stores a sparse matrix as a group (data, ir, jc)");
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
        const struct matlab_class *c = fundamental_class(s->matlab_class);
        if (c && c->stored && strcmp(actual, c->stored) &&
            !(!strcmp(c->name, "double") && (!strcmp(actual, "complex128") || !strcmp(actual, "compound16"))) &&
            !(!strcmp(c->name, "single") && (!strcmp(actual, "complex64") || !strcmp(actual, "compound8"))))
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
}

