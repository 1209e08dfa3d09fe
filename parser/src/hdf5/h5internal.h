/* Between the parent side of the HDF5 scan (scan.c) and the child that
 * runs libhdf5 (child.c, walk.c, storage.c, sandbox.c). Not installed.
 *
 * The child writes one line per record to a pipe, fields separated by
 * tabs, every field printable (bytes below 0x20, 0x7f, '\\' and bytes
 * above 0x7e escaped as \xNN), at most NPYG__H5_LINE bytes:
 *
 *   O <code> <warnings> <kind> <type> <shape> <path> <message>
 *   E <code> <message>                          (last line; code 0: done)
 *
 * shape is "-" for none, "" for a scalar, "2,3" otherwise.
 */
#ifndef NPYG_H5INTERNAL_H
#define NPYG_H5INTERNAL_H

#include "../internal.h"

#define NPYG__H5_LINE 1024u
#define NPYG__H5_PATH_MAX 400u   /* bytes of a path in a record, escaped */
#define NPYG__H5_MSG_MAX 300u
#define NPYG__H5_MAX_DIMS 32u    /* H5S_MAX_RANK */
#define NPYG__H5_NOFILE 8u       /* descriptors the child may hold */
#define NPYG__H5_PARENT_BUF (2u * NPYG__H5_LINE) /* all the parent allocates */

typedef struct npyg__h5_params {
    uint32_t max_objects;
    uint32_t max_nesting;
    uint64_t max_payload;
    bool strict;
    uint64_t max_paths;
    uint32_t max_ref_depth;
} npyg__h5_params;

bool npyg__h5_limits_valid(const npyg_hdf5_limits *limits);

/* h5api.c: map libhdf5 and fill its table, once per process, before the
   first fork. 0, or NPYG_EHDF5_UNAVAILABLE with the loader's reason in
   *why (static text). Safe from any thread. */
int npyg__h5_load(const char **why);

/* The child's whole life after fork: limits, then libhdf5 on in_fd with
   the records to out_fd. Never returns. */
void npyg__h5_child(int in_fd, int out_fd, const npyg_hdf5_limits *limits,
                    const npyg__h5_params *params)
#if defined(__GNUC__)
    __attribute__((noreturn))
#endif
    ;

/* sandbox.c: setrlimit and descriptors before the input is opened; the
   seccomp filter after. 0 or -1 (errno set). */
int npyg__h5_limit_child(const npyg_hdf5_limits *limits, int *in_fd, int *out_fd);
int npyg__h5_seccomp(void);

#endif
