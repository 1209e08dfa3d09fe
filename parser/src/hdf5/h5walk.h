/* SPDX-License-Identifier: BSD-3-Clause */
/* The walk (walk.c) as the child's entry (child.c) sees it. Not installed. */
#ifndef NPYG_H5WALK_H
#define NPYG_H5WALK_H

#include "h5api.h"

/* Walks the open file, one record per object to out, then the end record
   (code 0). image is the file's bytes (size of them), read by the vlen
   check; NULL refuses every vlen element as unchecked. Memory is plain
   malloc: the child's is capped by its rlimits. */
void npyg__h5_walk(hid_t file, const void *image, uint64_t size, int out, const npyg__h5_params *params);

/* The load records (h5internal.h) of every path from the root, after a
   walk without a hazard (emit.c); 0, or a code with "path: why" in msg. */
int npyg__h5_emit(hid_t file, int out, char *msg, size_t size);

/* All len bytes to fd, gathered in the child's output buffer and written
   (retried after EINTR) when it fills, when another fd is written, or at
   npyg__h5_flush (the end record flushes); false when the pipe broke. */
bool npyg__h5_write_all(int fd, const void *buf, size_t len);
bool npyg__h5_flush(void);

/* H5Dread of elems elements of set as mem, through a conversion buffer
   no larger than the read needs. */
herr_t npyg__h5_read(hid_t set, hid_t mem, hid_t mspace, hid_t fspace, uint64_t elems, void *buf);

/* The memory type h5py reads the integer or float t as (a new type: the
   standard one of t's size and order when t equals it, else the type
   libhdf5 converts to), its .npy descr in descr; -1 with why when no
   numpy type holds t (layout.c). */
hid_t npyg__h5_number_mem(hid_t t, char *descr, size_t cap, const char **why);

/* Whether every integer and float in t (members, bases included) equals
   a standard type; if not, false with the first one described in why. */
bool npyg__h5_standard_layout(hid_t t, char *why, size_t cap);

/* Whether h5py would read t through a numpy dtype whose fields overlap:
   a compound member (not of h5py's complex pair) whose float h5py reads
   at a larger size, at the stored offsets. h5py then reads past its
   buffers (glibc aborts it: "double free or corruption"). */
bool npyg__h5_overlapping_fields(hid_t t);

/* One byte of a record field: itself, or \xNN for a control byte, a
   byte above 0x7e and the backslash; writes 1 or 4 bytes to dst. */
size_t npyg__h5_escape_byte(char *dst, unsigned char c);

/* The end record: code and message; the last line the child writes. */
void npyg__h5_send_end(int out, int code, const char *msg);

/* The innermost message libhdf5 left on its error stack (out: 160 bytes). */
void npyg__h5_last_error(char *out);

#endif
