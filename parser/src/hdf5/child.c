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
#include "h5walk.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
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

/* The input to 3, the record pipe to 4, nothing else above 2 (0, 1 and 2
   are the helper's /dev/null). */
static int descriptors(int in_fd, int out_fd)
{
    int a = fcntl(in_fd, F_DUPFD_CLOEXEC, 5), b = fcntl(out_fd, F_DUPFD_CLOEXEC, 5);
    if (a < 0 || b < 0) return -1;
    if (dup2(a, NPYG__H5_IN_FD) != NPYG__H5_IN_FD || dup2(b, NPYG__H5_OUT_FD) != NPYG__H5_OUT_FD) return -1;
    return (int)syscall(SYS_close_range, 5u, ~0u, 0u);
}

void npyg__h5_child(int in_fd, int out_fd, const npyg__h5_request *req, uint64_t base_vm, uint64_t base_data)
{
    if (descriptors(in_fd, out_fd) != 0) _exit(1);
    if (npyg__h5_limit_child(req, base_vm, base_data) != 0) fail(NPYG_EHDF5_SANDBOX, "cannot set the child's limits");
    /* namespaces, no_new_privs, Landlock and the helper's own filter are
       the helper's, inherited; this filter narrows its list */
    if (npyg__h5_child_filter() != 0) fail(NPYG_EHDF5_SANDBOX, "cannot install the seccomp filter");

    /* From here on the child is caged: nothing below needs more. */
    size_t size = (size_t)req->size;
    void *map = mmap(NULL, size, PROT_READ, MAP_PRIVATE, NPYG__H5_IN_FD, 0);
    if (map == MAP_FAILED) fail(NPYG_EHDF5_SANDBOX, "cannot map the input");
#if defined(NPYG_H5_ESCAPE_TESTS)
    npyg__h5_escape(map, size, NPYG__H5_OUT_FD);
#endif
    image im = {map, size};
    H5FD_file_image_callbacks_t cb = {image_malloc, image_memcpy, image_realloc, image_free,
                                      udata_copy, udata_free, &im};
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    if (fapl < 0 || H5Pset_fapl_core(fapl, 1 << 16, 0) < 0 || H5Pset_file_image_callbacks(fapl, &cb) < 0 ||
        H5Pset_file_image(fapl, map, size) < 0) {
        npyg__h5_send_end(NPYG__H5_OUT_FD, NPYG_EHDF5_SANDBOX, "libhdf5 refused the file image");
        _exit(1);
    }
    hid_t file = H5Fopen("/npyguard-input", H5F_ACC_RDONLY, fapl);
    H5Pclose(fapl);
    if (file < 0) {
        char e[160] = "", msg[256];
        npyg__h5_last_error(e);
        snprintf(msg, sizeof msg, "libhdf5 cannot open the file: %s", e);
        npyg__h5_send_end(NPYG__H5_OUT_FD, NPYG_EHDF5_OPEN, msg);
        _exit(0);
    }
    npyg__h5_walk(file, map, size, NPYG__H5_OUT_FD, &req->params);
    _exit(0);
}
