/* SPDX-License-Identifier: BSD-3-Clause */
/* One file's child, forked by the helper: the cage first (sandbox.c), then
 * the input is mapped read-only and libhdf5 opens the mapping as a file
 * image, and the walk (walk.c) reports what it finds.
 *
 * libhdf5 never sees a file name it could open: the core driver is handed
 * the mapping through file-image callbacks that neither copy nor free it
 * (what H5LTopen_file_image does with H5LT_FILE_IMAGE_DONT_COPY and
 * DONT_RELEASE), with no backing store. Its one open(), a check that no
 * file of the image's name exists, gets EACCES from the filter. The name is
 * absolute, so that libhdf5 does not ask for the working directory either.
 */
#define _GNU_SOURCE
#include "h5io.h"
#include "h5walk.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(NPYG_H5_ESCAPE_TESTS)
void npyg__h5_escape(const char *image, size_t size, int out);
#endif

typedef struct {
    void *ptr;
    size_t size;
} image;

/* Every copy libhdf5 asks for is the mapping itself. */
static void *image_malloc(size_t size, H5FD_file_image_op_t op, void *udata)
{
    (void)op;
    image *im = udata;
    return size == im->size ? im->ptr : NULL;
}

static void *image_memcpy(void *dest, const void *src, size_t size, H5FD_file_image_op_t op, void *udata)
{
    (void)op;
    image *im = udata;
    return dest == im->ptr && src == im->ptr && size == im->size ? dest : NULL;
}

static void *image_realloc(void *ptr, size_t size, H5FD_file_image_op_t op, void *udata)
{
    (void)ptr, (void)size, (void)op, (void)udata;
    return NULL; /* read-only: never grown */
}

static herr_t image_free(void *ptr, H5FD_file_image_op_t op, void *udata)
{
    (void)op;
    image *im = udata;
    return ptr == im->ptr ? 0 : -1;
}

static void *udata_copy(void *udata) { return udata; }
static herr_t udata_free(void *udata) { return udata ? 0 : -1; }

static void fail(int code, const char *what)
{
    char msg[NPYG__H5_MSG_MAX];
    snprintf(msg, sizeof msg, "%s: %s", what, strerror(errno));
    npyg__h5_send_end(NPYG__H5_OUT_FD, code, msg);
    _exit(1);
}

/* This child's socket to NPYG__H5_CHILD_CTL_FD and nothing else above 2
   (0, 1 and 2 are the helper's /dev/null): the input and the record pipe
   then land on 3 and 4, the lowest free numbers. */
static int descriptors(int ctl)
{
    int c = fcntl(ctl, F_DUPFD_CLOEXEC, NPYG__H5_CHILD_CTL_FD + 1);
    if (c < 0 || dup2(c, NPYG__H5_CHILD_CTL_FD) != NPYG__H5_CHILD_CTL_FD) return -1;
    if (syscall(SYS_close_range, 3u, (unsigned)NPYG__H5_CHILD_CTL_FD - 1, 0u) != 0) return -1;
    return (int)syscall(SYS_close_range, NPYG__H5_CHILD_CTL_FD + 1u, ~0u, 0u);
}

/* The request and its two descriptors, exactly, on 3 and 4; or -1. */
static int await_request(npyg__h5_request *req)
{
    union {
        char buf[CMSG_SPACE(2 * sizeof(int))];
        struct cmsghdr align;
    } u;
    struct iovec iov = {req, sizeof *req};
    struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf, .msg_controllen = sizeof u.buf};
    ssize_t n;
    do n = recvmsg(NPYG__H5_CHILD_CTL_FD, &m, MSG_CMSG_CLOEXEC);
    while (n < 0 && errno == EINTR);
    struct cmsghdr *c = CMSG_FIRSTHDR(&m);
    int fds[2] = {-1, -1};
    if (c && c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS && c->cmsg_len == CMSG_LEN(sizeof fds))
        memcpy(fds, CMSG_DATA(c), sizeof fds);
    bool one = c && !CMSG_NXTHDR(&m, c);
    return n == (ssize_t)sizeof *req && !(m.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) && one &&
                   fds[0] == NPYG__H5_IN_FD && fds[1] == NPYG__H5_OUT_FD
               ? 0
               : -1;
}

/* The file access list, made before the input exists: the core driver
   with no backing store, and the callbacks above on im, which is filled
   in once the input is mapped. Its first use in a fresh process costs
   page faults that need not wait for the file. -1 if libhdf5 refuses. */
static hid_t image_access(image *im)
{
    H5FD_file_image_callbacks_t cb = {image_malloc, image_memcpy, image_realloc, image_free,
                                      udata_copy, udata_free, im};
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    if (fapl >= 0 && (H5Pset_fapl_core(fapl, 1 << 16, 0) < 0 || H5Pset_file_image_callbacks(fapl, &cb) < 0)) {
        H5Pclose(fapl);
        return -1;
    }
    return fapl;
}

/* libhdf5 on the image im, through fapl; a file id, -1 if libhdf5
   cannot open it, -2 if it refused the image. Closes fapl. */
static hid_t open_image(hid_t fapl, const image *im)
{
    if (fapl < 0 || H5Pset_file_image(fapl, im->ptr, im->size) < 0) {
        if (fapl >= 0) H5Pclose(fapl);
        return -2;
    }
    hid_t file = H5Fopen("/npyguard-input", H5F_ACC_RDONLY, fapl);
    H5Pclose(fapl);
    return file;
}

/* Opening a file, libhdf5 allocates and zeroes some 600 KiB (its metadata
   cache alone is 512 KiB), each page a fault in a fresh process. Here,
   before the input exists, they are made in one call and left in the heap
   (large blocks stay there when freed), so that the input's open finds
   them mapped: a page costs less made in bulk than faulted in one by
   one. */
#define PREFAULT (640u << 10)

static void prefault(void)
{
    mallopt(M_MMAP_THRESHOLD, 8 << 20);
    mallopt(M_TRIM_THRESHOLD, 32 << 20);
    char *p = malloc(PREFAULT);
    if (p) {
        uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
        uintptr_t a = ((uintptr_t)p + page - 1) & ~(page - 1), b = ((uintptr_t)p + PREFAULT) & ~(page - 1);
        (void)madvise((void *)a, b - a, MADV_POPULATE_WRITE); /* best effort: Linux 5.14 */
    }
    free(p);
}

void npyg__h5_child(int ctl, uint64_t base_vm, uint64_t base_data)
{
    if (descriptors(ctl) != 0) _exit(1);
    /* namespaces, no_new_privs, Landlock and the helper's own filter are
       the helper's, inherited; this filter narrows its list */
    int caged = npyg__h5_child_filter(), why = errno;
    image im = {NULL, 0};
    hid_t fapl = -1;
    if (caged == 0) {
        prefault();
        fapl = image_access(&im);
    }
    npyg__h5_request req;
    if (await_request(&req) != 0) _exit(1);
    if (caged != 0) {
        errno = why;
        fail(NPYG_EHDF5_SANDBOX, "cannot install the seccomp filter");
    }
    if (npyg__h5_limit_child(&req, base_vm, base_data) != 0) fail(NPYG_EHDF5_SANDBOX, "cannot set the child's limits");

    /* From here on the child is caged: nothing below needs more. */
    size_t size = (size_t)req.size;
    void *map = mmap(NULL, size, PROT_READ, MAP_PRIVATE, NPYG__H5_IN_FD, 0);
    if (map == MAP_FAILED) fail(NPYG_EHDF5_SANDBOX, "cannot map the input");
#if defined(NPYG_H5_ESCAPE_TESTS)
    npyg__h5_escape(map, size, NPYG__H5_OUT_FD);
#endif
    im = (image){map, size};
    hid_t file = open_image(fapl, &im);
    if (file == -2) {
        npyg__h5_send_end(NPYG__H5_OUT_FD, NPYG_EHDF5_SANDBOX, "libhdf5 refused the file image");
        _exit(1);
    }
    if (file < 0) {
        char e[160] = "", msg[256];
        npyg__h5_last_error(e);
        snprintf(msg, sizeof msg, "libhdf5 cannot open the file: %s", e);
        npyg__h5_send_end(NPYG__H5_OUT_FD, NPYG_EHDF5_OPEN, msg);
        _exit(0);
    }
    req.params.exits = true;
    bool clean = npyg__h5_walk(file, map, size, NPYG__H5_OUT_FD, &req.params);
    /* the load (emit.c) only of a file whose walk found nothing */
    char end[NPYG__H5_MSG_MAX] = "";
    int code = req.params.load && clean ? npyg__h5_emit(file, NPYG__H5_OUT_FD, end, sizeof end) : 0;
    npyg__h5_send_end(NPYG__H5_OUT_FD, code, end);
    /* the end record is out: the parent has its verdict at the pipe's
       end, not after this address space is torn down */
    close(NPYG__H5_OUT_FD);
    _exit(0);
}
