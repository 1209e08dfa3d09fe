/* SPDX-License-Identifier: BSD-3-Clause */
/* The child's I/O (io.c), for the walk and the load. Not installed. */
#ifndef NPYG_H5IO_H
#define NPYG_H5IO_H
#include "h5api.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The record channel to the parent. */
typedef struct {
    int out;
    bool dead;    /* the pipe broke: stop writing */
    bool refused; /* a record with a code went out: nothing is loaded */
} npyg__h5_chan;

/* One object record (h5internal.h): code, warnings, kind, type, dims
   (ndim < 0: none), path and message, each field escaped and bounded. */
void npyg__h5_rec_object(npyg__h5_chan *c, int code, unsigned warnings, const char *kind, const char *type,
                         int ndim, const hsize_t *dims, const char *path, const char *msg);
/* The end record: code and message; the last line the child writes. */
void npyg__h5_send_end(int out, int code, const char *msg);
/* All len bytes to fd, gathered in the child's output buffer and written
   (retried after EINTR) when it fills, when another fd is written, or at
   npyg__h5_flush (the end record flushes); false when the pipe broke. */
bool npyg__h5_write_all(int fd, const void *buf, size_t len);
bool npyg__h5_flush(void);
/* One byte of a record field: itself, or \xNN for a control byte, a
   byte above 0x7e and the backslash; writes 1 or 4 bytes to dst. */
size_t npyg__h5_escape_byte(char *dst, unsigned char c);
/* H5Dread of elems elements of set as mem, through a conversion buffer
   no larger than the read needs. */
herr_t npyg__h5_read(hid_t set, hid_t mem, hid_t mspace, hid_t fspace, uint64_t elems, void *buf);
/* The innermost message libhdf5 left on its error stack (out: 160 bytes). */
void npyg__h5_last_error(char *out);
#endif
