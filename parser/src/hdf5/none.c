/* SPDX-License-Identifier: BSD-3-Clause */
/* Built without libhdf5: HDF5 files are recognised (mat.c) but not
 * scanned; the scan says so with its own code. */
#include "h5internal.h"

#include <string.h>

int npyg_hdf5_available(void) { return 0; }

int npyg_hdf5_scan(npyg_ctx *ctx, const npyg_hdf5_limits *limits, npyg_hdf5_object_fn fn, void *user)
{
    (void)limits;
    (void)fn;
    (void)user;
    if (!ctx) return NPYG_EINVAL;
    int rc = npyg_probe_input(ctx);
    if (rc) return rc;
    const npyg_probe_info *pi = npyg_get_probe_info(ctx);
    if (pi->format != NPYG_FORMAT_HDF5 && pi->format != NPYG_FORMAT_MAT73)
        return npyg__fail(ctx, NPYG_EHDF5_NOTHDF5, 0,
                          "no HDF5 superblock signature at offset 0, 512, 1024, ...");
    return npyg__fail(ctx, NPYG_EHDF5_UNAVAILABLE, 0,
                      "this build of npyguard has no libhdf5: HDF5 files cannot be checked");
}

int npyg_hdf5_scan_fd(npyg_ctx *ctx, int fd, const npyg_hdf5_limits *limits,
                      npyg_hdf5_object_fn fn, void *user)
{
    if (!ctx) return NPYG_EINVAL;
    npyg_set_input_fd(ctx, fd);
    return npyg_hdf5_scan(ctx, limits, fn, user);
}

void npyg__h5_ctx_free(npyg_ctx *ctx) { (void)ctx; }

int npyg_hdf5_set_helper(npyg_ctx *ctx, const char *path)
{
    (void)path;
    return ctx ? 0 : NPYG_EINVAL;
}

int npyg_hdf5_set_interrupt(npyg_ctx *ctx, int (*fn)(void *user), void *user)
{
    (void)fn;
    (void)user;
    return ctx ? 0 : NPYG_EINVAL;
}

int npyg_hdf5_sandbox_info(npyg_ctx *ctx, char *out, size_t size)
{
    if (!ctx || !out || !size) return NPYG_EINVAL;
    npyg__ctx_reset(ctx);
    return npyg__fail(ctx, NPYG_EHDF5_UNAVAILABLE, 0,
                      "this build of npyguard has no libhdf5: HDF5 files cannot be checked");
}

int npyg_hdf5_load(npyg_ctx *ctx, const npyg_hdf5_limits *limits, const npyg_hdf5_sink *sink)
{
    if (!ctx || !sink || !sink->object || !sink->value || !sink->end) return NPYG_EINVAL;
    int rc = npyg_hdf5_scan(ctx, limits, NULL, NULL);
    sink->end(sink->user, rc);
    return rc;
}

int npyg_hdf5_load_fd(npyg_ctx *ctx, int fd, const npyg_hdf5_limits *limits, const npyg_hdf5_sink *sink)
{
    if (!ctx) return NPYG_EINVAL;
    npyg_set_input_fd(ctx, fd);
    return npyg_hdf5_load(ctx, limits, sink);
}
