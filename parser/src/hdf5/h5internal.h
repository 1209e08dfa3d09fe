/* SPDX-License-Identifier: BSD-3-Clause */
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
 *
 * A load (npyg__h5_params.load) adds, after the O records of a walk that
 * found no hazard and before the E record, one record per path reached
 * from the root, parents before children, each object's attributes
 * right after its own record (fields escaped the same way, never cut):
 *
 *   G <path>                                   a group
 *   L <path> <target>                          a soft link (not followed)
 *   D <path> <form> <cset> <space>             a dataset, then its value
 *   A <path> <name> <form> <cset> <space>      an attribute, then its value
 *
 * cset is "ascii" or "utf-8" for strings, "-" otherwise; space "simple"
 * (scalar included) or "null". The value follows the line's newline as
 * .npy files (version 1.0, or 2.0 for a header past 64 KiB), end to end:
 *   form "array": one .npy, the value as h5py's ds[()] gives it;
 *   form "str" (vlen strings), "ref" (object references, sent as the
 *   path libhdf5 names, "" for a null reference) and "vlen" (vlen
 *   sequences): two .npy, the lengths ('<u8', the value's shape, in
 *   elements of the data) and the data end to end (1-d; '|u1' for str
 *   and ref, the base type for vlen), as many elements as the lengths sum;
 *   space "null": one .npy of shape (0,) that carries the dtype only
 *   ('|u1' for the str, ref and vlen forms).
 * A dataset of form "array" whose bytes lie in the file as the value has
 * them (contiguous, one extent, stored type equal to the value's) may
 * have space "at:<offset>" instead of "simple": its .npy header is sent,
 * its payload is not; the parent reads it from the input at that offset,
 * a range it checks against the file's size. A lying child can point at
 * other bytes of the same file, never at anything else.
 */
#ifndef NPYG_H5INTERNAL_H
#define NPYG_H5INTERNAL_H

#include "../internal.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>

/* AddressSanitizer builds (tests only): the child's memory is not capped,
   its runtime gets a few more calls, and the helper keeps its options. */
#if defined(__SANITIZE_ADDRESS__)
#define NPYG__ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define NPYG__ASAN 1
#endif
#endif

#define NPYG__H5_LINE 1024u
#define NPYG__H5_PATH_MAX 400u   /* bytes of a path in a record, escaped */
#define NPYG__H5_MSG_MAX 300u
#define NPYG__H5_MAX_DIMS 32u    /* H5S_MAX_RANK */
#define NPYG__H5_NOFILE 8u       /* descriptors the child may hold */
#define NPYG__H5_HELPER_NOFILE 16u
#define NPYG__H5_PARENT_BUF (2u * NPYG__H5_LINE) /* all the parent allocates */
#define NPYG__H5_NPY_HEADER 65536u /* a load: the most a value's .npy header may be */

typedef struct npyg__h5_params {
    uint32_t max_objects;
    uint32_t max_nesting;
    uint64_t max_payload;
    bool strict;
    uint64_t max_paths;
    uint32_t max_ref_depth;
    bool load;                  /* send every value after a clean walk */
    bool exits;                 /* the process ends with the walk: what it
                                   registered with libhdf5 and what it holds
                                   stay (set by the child itself, not sent) */
    uint64_t max_load;          /* bytes a load materialises (fanout.c) */
} npyg__h5_params;

bool npyg__h5_limits_valid(const npyg_hdf5_limits *limits);
/* What a load of a file of file_size bytes may materialise:
   max_load plus NPYG_LOAD_BYTES_PER_BYTE per byte, saturating; the
   child's verdict and the parent's count use the same. */
static inline uint64_t npyg__h5_load_budget(uint64_t max_load, uint64_t file_size)
{
    uint64_t per, out;
    if (!npyg__mul_u64(file_size, NPYG_LOAD_BYTES_PER_BYTE, &per) || !npyg__add_u64(max_load, per, &out))
        return UINT64_MAX;
    return out;
}

/* The helper (helper.c), one per context: an exec'd process that loads
 * libhdf5 once, never reads an input, and forks one caged child per file.
 * The parent (scan.c) speaks to it over a SOCK_SEQPACKET socket, its
 * descriptor 3, in fixed-size messages:
 *
 *   helper -> parent   hello     once, when libhdf5 is loaded and its own
 *                                filter is in force (or why not)
 *   parent -> helper   scan      + SCM_RIGHTS: the input (read-only) and
 *                                the write end of the record pipe
 *   parent -> helper   kill      the parent's deadline passed, or the
 *                                records broke the protocol: the running
 *                                file's child (and one still ending) dies
 *   helper -> parent   done      a child's wait status, one per scan, in
 *                                the order the scans came
 *
 * The records themselves go from the child to the parent through the pipe.
 * A file whose records ended well (and whose pipe closed, for a scan) has
 * its verdict: its done is owed, read before a later one, and the next
 * scan may be sent first; the helper kills an earlier file's child that
 * is still running when a scan comes.
 */
#define NPYG__H5_HELPER_NAME "npyg-hdf5-helper"
#define NPYG__H5_MAGIC 0x3548504eu /* "NPH5" */
#define NPYG__H5_SOCK_FD 3
#define NPYG__H5_IN_FD 3           /* in the child */
#define NPYG__H5_OUT_FD 4
#define NPYG__H5_CHILD_CTL_FD 5    /* the child's end of its own socket */
#define NPYG__H5_HELPER_CTL_FD 6   /* the helper's end, to the next child */
#define NPYG__H5_PARENT_FD 7       /* the helper's pidfd of the parent process */

enum { NPYG__H5_HELLO = 1, NPYG__H5_SCAN, NPYG__H5_KILL, NPYG__H5_DONE };

/* The cage's layers (npyg__h5_hello.layers). */
enum {
    NPYG__H5_L_SECCOMP = 1u << 0,   /* allow list, default kill: always */
    NPYG__H5_L_LANDLOCK = 1u << 1,  /* no file access at all */
    NPYG__H5_L_USERNS = 1u << 2,    /* new user and network namespaces */
    NPYG__H5_L_NONET = 1u << 3,     /* stand-ins for libcurl and libcrypto */
};

typedef struct npyg__h5_hello {
    uint32_t magic, type;
    uint32_t layers;
    uint32_t landlock_abi;
    int32_t error;                  /* 0, or why the helper cannot scan (an errno;
                                       ENOENT: libhdf5 does not load) */
    char why[200];
} npyg__h5_hello;

typedef struct npyg__h5_request {
    uint32_t magic, type;
    npyg_hdf5_limits limits;
    npyg__h5_params params;
    uint64_t size;                  /* of the input: mapped whole */
} npyg__h5_request;

typedef struct npyg__h5_done {
    uint32_t magic, type;
    int32_t status;                 /* waitpid's */
    int32_t error;                  /* errno when no child ran */
} npyg__h5_done;

/* A message and two descriptors over a SOCK_SEQPACKET socket (the parent
   to the helper, the helper to a file's child): 0, or -1 with errno. */
static inline int npyg__h5_send_fds(int sock, const void *msg, size_t len, const int fds[2])
{
    union {
        char buf[CMSG_SPACE(2 * sizeof(int))];
        struct cmsghdr align;
    } u;
    memset(&u, 0, sizeof u);
    struct iovec iov = {(void *)msg, len};
    struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf, .msg_controllen = sizeof u.buf};
    struct cmsghdr *c = CMSG_FIRSTHDR(&m);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(2 * sizeof(int));
    memcpy(CMSG_DATA(c), fds, 2 * sizeof(int));
    ssize_t n;
    do n = sendmsg(sock, &m, MSG_NOSIGNAL);
    while (n < 0 && errno == EINTR);
    return n == (ssize_t)len ? 0 : -1;
}

/* h5api.c: map libhdf5 and fill its table, once, in the helper.
   0, or NPYG_EHDF5_UNAVAILABLE with the loader's reason in *why. */
int npyg__h5_load(const char **why);

/* child.c. The helper forks each file's child before the file arrives:
   the child cages itself, makes the memory libhdf5's open will want
   (prefault) and its file access list, and only then waits on its end of
   a socket (ctl, moved to NPYG__H5_CHILD_CTL_FD) for the request and its
   two descriptors, which land on NPYG__H5_IN_FD and NPYG__H5_OUT_FD.
   Never returns. */
void npyg__h5_child(int ctl, uint64_t base_vm, uint64_t base_data)
#if defined(__GNUC__)
    __attribute__((noreturn))
#endif
    ;

/* sandbox.c */
int npyg__h5_set_limit(int resource, uint64_t soft, uint64_t hard);
int npyg__h5_own_memory(uint64_t *vm, uint64_t *data);
/* In the helper, before its filter: new user and network namespaces,
   no_new_privs and Landlock, each where the kernel has it (h->layers);
   every child inherits them. -1 (errno set): no_new_privs failed. */
int npyg__h5_cage_helper(npyg__h5_hello *h);
/* The helper's own filter: what it needs to receive, fork and wait. */
int npyg__h5_helper_filter(void);
/* In the child: its filter, then (the request come) its limits; each 0
   or -1 (errno set). */
int npyg__h5_child_filter(void);
/* The child's filter is compiled once, in the helper before its own
   filter (prepare); each child puts its pid in and loads the result
   (program), or compiles its own when there is none. compile: libseccomp's
   program of the child's list for pid self, as the kernel takes it. Each
   gives the program's length in instructions, or 0. */
#define NPYG__H5_PROGRAM_MAX 512u
struct sock_filter; /* <linux/filter.h> */
void npyg__h5_child_filter_prepare(void);
unsigned npyg__h5_child_program(pid_t self, struct sock_filter *out, unsigned max);
unsigned npyg__h5_child_compile(pid_t self, struct sock_filter *out, unsigned max);
int npyg__h5_limit_child(const npyg__h5_request *req, uint64_t base_vm, uint64_t base_data);

#endif
