/* The child's whole life after fork: the cage (sandbox.c), then libhdf5
 * opens the input and the walk (walk.c) reports what it finds.
 */
#define _GNU_SOURCE
#include "h5walk.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

void npyg__h5_child(int in_fd, int out_fd, const npyg_hdf5_limits *limits, const npyg__h5_params *p)
{
    signal(SIGPIPE, SIG_DFL);
    if (npyg__h5_limit_child(limits, &in_fd, &out_fd) != 0) {
        npyg__h5_send_end(out_fd, NPYG_EHDF5_SANDBOX, "cannot set the child's limits");
        _exit(1);
    }
    /* Nothing from the caller's environment steers libhdf5 to other files. */
    static const char *const env[] = {"HDF5_PLUGIN_PATH", "HDF5_PLUGIN_PRELOAD", "HDF5_EXT_PREFIX",
        "HDF5_VDS_PREFIX", "HDF5_DRIVER", "HDF5_DRIVER_CONFIG", "HDF5_USE_FILE_LOCKING", NULL};
    for (const char *const *e = env; *e; e++) unsetenv(*e);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    if (H5PLset_loading_state(0) < 0) {
        npyg__h5_send_end(out_fd, NPYG_EHDF5_SANDBOX, "libhdf5 refused to turn plugin loading off");
        _exit(1);
    }
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_fapl_sec2(fapl);
#if H5_VERSION_GE(1, 10, 7)
    H5Pset_file_locking(fapl, 0, 1);
#endif
    char name[64];
    snprintf(name, sizeof name, "/proc/self/fd/%d", in_fd);
    hid_t file = H5Fopen(name, H5F_ACC_RDONLY, fapl);
    char e[160] = "";
    if (file < 0) npyg__h5_last_error(e);
    H5Pclose(fapl);
    if (npyg__h5_seccomp() != 0) {
        npyg__h5_send_end(out_fd, NPYG_EHDF5_SANDBOX, "cannot install the seccomp filter");
        _exit(1);
    }
    if (file < 0) {
        char msg[256];
        snprintf(msg, sizeof msg, "libhdf5 cannot open the file: %s", e);
        npyg__h5_send_end(out_fd, NPYG_EHDF5_OPEN, msg);
        _exit(0);
    }
    npyg__h5_walk(file, out_fd, p);
    _exit(0);
}
