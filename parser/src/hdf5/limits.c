/* SPDX-License-Identifier: BSD-3-Clause */
/* The HDF5 scan's limits struct (its defaults and ranges are limits.c's
 * table) and the parent's allocation bound: built with or without libhdf5,
 * so that callers can size things either way; the helper links it too. */
#include "h5internal.h"

void npyg_hdf5_limits_default(npyg_hdf5_limits *l)
{
    if (l) npyg__limits_fill(NPYG__LG_HDF5, l);
}

bool npyg__h5_limits_valid(const npyg_hdf5_limits *l) { return npyg__limits_bad(NPYG__LG_HDF5, l) < 0; }

uint64_t npyg_hdf5_worst_case_alloc(const npyg_limits *limits, const npyg_hdf5_limits *hl)
{
    npyg_hdf5_limits d;
    if (!hl) {
        npyg_hdf5_limits_default(&d);
        hl = &d;
    }
    /* the context itself, and the one record buffer of the scan */
    uint64_t bound = sizeof(npyg_ctx) + NPYG__H5_PARENT_BUF;
    if (!limits || !npyg__h5_limits_valid(hl) || limits->max_alloc_bytes < bound) return 0;
    return bound;
}

