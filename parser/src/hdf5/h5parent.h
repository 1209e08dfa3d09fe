/* SPDX-License-Identifier: BSD-3-Clause */
/* The parent side of the HDF5 scan, in three files: helperctl.c (the
   context's helper process: found, started, asked, ended), records.c
   (the child's records and values, read from the pipe and checked) and
   scan.c (one file's scan or load, and its verdict). Not installed. */
#ifndef NPYG_H5PARENT_H
#define NPYG_H5PARENT_H

#include "h5internal.h"

#define BUF_SIZE NPYG__H5_PARENT_BUF

int64_t npyg__h5_now_ms(void);

/* ---- helperctl.c ---- */

/* The context's helper, started if it has none or only its parent
   process's; 0 or the code, recorded. */
int npyg__h5_own_helper(npyg_ctx *ctx, const npyg_hdf5_limits *hl);
int npyg__h5_start_helper(npyg_ctx *ctx, const npyg_hdf5_limits *hl);
void npyg__h5_end_helper(npyg_ctx *ctx);
/* Hands the helper the input (read-only) and the pipe's write end. */
int npyg__h5_send_scan(npyg_ctx *ctx, const npyg__h5_request *req, int in, int out);
/* One poll of a wait, in ms: short when the caller can interrupt. */
int npyg__h5_wait_slice(const npyg_ctx *ctx, int64_t left);
/* The caller's interrupt callback says stop. */
bool npyg__h5_interrupted(const npyg_ctx *ctx);
bool npyg__h5_is_done(const npyg__h5_done *d);
/* The owed ends beyond keep; this file's end after every owed one. */
int npyg__h5_drain(npyg_ctx *ctx, uint32_t keep, int64_t deadline);
int npyg__h5_next_done(npyg_ctx *ctx, npyg__h5_done *done, int64_t deadline);

/* ---- records.c ---- */

typedef struct {
    npyg_ctx *ctx;
    npyg_hdf5_object_fn fn;
    void *user;
    uint64_t records;
    uint64_t max_records;
    bool ended;
    bool stopped;     /* the callback (or the sink) asked to stop */
    int end_code;
    char end_msg[NPYG__H5_MSG_MAX + 8];
    /* a load */
    const npyg_hdf5_sink *sink;
    char *hbuf;       /* one .npy preamble and header */
    size_t hcap;
    uint64_t sum;     /* of the lengths just read */
    char where[NPYG__H5_LINE]; /* the object whose value is on its way */
    char why[240];    /* how its record broke the protocol */
    int limit;        /* or the parser's limit (50-55) it passed */
    npyg__input *src; /* the input, for values read from it ("at:") */
    bool at_file;     /* the value on its way is read from src at at */
    uint64_t at;
    uint64_t loaded;  /* bytes of every value accepted, against max_load */
    uint64_t max_load;
} reader;


/* The child's records through one fixed buffer; values are read past it,
   straight into the sink's buffers. */
typedef struct {
    int fd;
    char *buf;              /* BUF_SIZE bytes */
    size_t pos, have;
    int64_t deadline;
    bool timeout, poll_failed;
    int read_errno;         /* our own read failed: not the file's doing */
    bool eof;               /* the child closed its end */
    const npyg_ctx *ctx;    /* whose interrupt is asked while waiting */
    bool interrupted;       /* it said stop */
} pipe_in;
enum { LINE_OK, LINE_BAD, LINE_STOP, LINE_END };

/* Splits line at tabs into at most max fields; returns the count. */
int npyg__h5_split(char *line, char **f, int max);
/* The next line, NUL-terminated without its newline; NULL at the end of
   the input, or with *too_long for a line past NPYG__H5_LINE bytes. */
char *npyg__h5_pipe_line(pipe_in *p, bool *too_long);
/* An O or E record (the scan's); false: protocol error. */
bool npyg__h5_handle_line(reader *r, char *line, char **f, int n);
/* A G, L, D or A record (a load's) and its values: a LINE_* answer. */
int npyg__h5_load_line(reader *r, pipe_in *p, char **f, int n);

#endif
