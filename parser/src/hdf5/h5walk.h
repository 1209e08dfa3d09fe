/* SPDX-License-Identifier: BSD-3-Clause */
/* The walk (walk.c), the load (emit.c) and the layout rules (layout.c), as
   the child's entry (child.c) and each other see them. Not installed. */
#ifndef NPYG_H5WALK_H
#define NPYG_H5WALK_H

#include "h5api.h"

/* Walks the open file, one record per object to out (the caller sends
   the end record). image is the file's bytes (size of them), read by the
   vlen check; NULL refuses every vlen element as unchecked. Memory is
   plain malloc: the child's is capped by its rlimits. True when no record
   refused anything and every record went out: the file may be loaded. */
bool npyg__h5_walk(hid_t file, const void *image, uint64_t size, int out, const npyg__h5_params *params);

/* The load records (h5internal.h) of every path from the root, after a
   walk without a hazard (emit.c); 0, or a code with "path: why" in msg. */
int npyg__h5_emit(hid_t file, int out, char *msg, size_t size);

/* The memory type h5py reads the integer or float t as (a new type: the
   standard one of t's size and order when t equals it, else the type
   libhdf5 converts to), its .npy descr in descr; -1 with why when no
   numpy type holds t (layout.c). */
hid_t npyg__h5_number_mem(hid_t t, char *descr, size_t cap, const char **why);

/* h5py's complex: when the compound t has two members, r and i, whose
   floats h5py reads as one dtype of 4, 8 or 16 bytes, the memory type of
   that float (a new type) and its .npy descr in descr[16]; else -1
   (layout.c). */
hid_t npyg__h5_complex_float(hid_t t, char descr[16]);

/* Whether every integer and float in t (members, bases included) equals
   a standard type; if not, false with the first one described in why. */
bool npyg__h5_standard_layout(hid_t t, char *why, size_t cap);

/* Whether h5py would read t through a numpy dtype whose fields overlap:
   a compound member (not of h5py's complex pair) whose float h5py reads
   at a larger size, at the stored offsets. h5py then reads past its
   buffers (glibc aborts it: "double free or corruption"). */
bool npyg__h5_overlapping_fields(hid_t t);

#endif
