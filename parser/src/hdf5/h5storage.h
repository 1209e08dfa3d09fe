/* SPDX-License-Identifier: BSD-3-Clause */
/* hdf5storage's and MATLAB's attributes on one object, and whether they
 * agree with each other and with what the object holds (storage.c).
 * Between walk.c and storage.c; not installed. */
#ifndef NPYG_H5STORAGE_H
#define NPYG_H5STORAGE_H

#include "h5api.h"

typedef struct {
    /* A MATLAB class name is package-qualified ("TestClasses.EnumClass"):
       each identifier is at most 63 bytes (namelengthmax) */
    char python_type[64], underlying[64], container[32], matlab_class[256], h5path[NPYG__H5_PATH_MAX];
    bool has_python_type, has_underlying, has_container, has_matlab_class, has_h5path;
    uint64_t shape[NPYG__H5_MAX_DIMS];
    int shape_n;                 /* -1: no Python.Shape */
    int python_empty, matlab_empty; /* -1: absent */
    long long int_decode;        /* -1: absent */
    long long object_decode;     /* MATLAB_object_decode; -1: absent */
    bool has_sparse;             /* MATLAB_sparse */
    bool has_python_fields, has_matlab_fields;
    char problem[NPYG__H5_MSG_MAX]; /* first inconsistency */
} sattrs;

/* Empty: no attribute seen yet. */
void npyg__h5s_init(sattrs *s);

/* Takes one attribute of the object if it is one hdf5storage or MATLAB
   writes; `small`: its value is at most 4096 bytes, so it may be read. */
void npyg__h5s_take(sattrs *s, hid_t a, const char *name, bool small);

/* The first inconsistency goes to s->problem. actual is the stored type's
   name (walk.c's type_name). parent, the group that holds the object, is
   not compared with H5PATH: no reader reads H5PATH, and MATLAB itself
   writes values that are neither the object's path nor its group's
   (corpus/hdf5/README.md, "MATLAB's own conventions"). */
void npyg__h5s_check(sattrs *s, bool dataset, const char *actual, uint64_t itemsize, int ndim,
                     const hsize_t *dims, const char *parent);

#endif
