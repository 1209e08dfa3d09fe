/* The HDF5 scan's limits and the parent's allocation bound: built with or
 * without libhdf5, so that callers can size things either way. */
#include "h5internal.h"

void npyg_hdf5_limits_default(npyg_hdf5_limits *l)
{
    if (!l) return;
    l->max_objects = NPYG_DEFAULT_MAX_OBJECTS;
    l->max_nesting = NPYG_DEFAULT_MAX_NESTING;
    l->child_memory = NPYG_DEFAULT_CHILD_MEMORY;
    l->child_cpu_seconds = NPYG_DEFAULT_CHILD_CPU_SECONDS;
    l->child_wall_seconds = NPYG_DEFAULT_CHILD_WALL_SECONDS;
    l->max_paths = NPYG_DEFAULT_MAX_PATHS;
    l->max_ref_depth = NPYG_DEFAULT_MAX_REF_DEPTH;
}

bool npyg__h5_limits_valid(const npyg_hdf5_limits *l)
{
    return l->max_objects >= 1 && l->max_objects <= NPYG_MAX_OBJECTS_CAP && l->max_nesting >= 1 &&
           l->max_nesting <= NPYG_MAX_NESTING_CAP && l->child_memory >= (UINT64_C(16) << 20) &&
           l->child_cpu_seconds >= 1 && l->child_wall_seconds >= 1 &&
           l->child_wall_seconds <= 86400 && l->child_cpu_seconds <= 86400 && l->max_paths >= 1 &&
           l->max_ref_depth >= 1 && l->max_ref_depth <= NPYG_MAX_REF_DEPTH_CAP;
}

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

