/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What a context can hold at once: the sum of the bounds of the formats it
 * reads, each from the file that holds its formula. It sits above every
 * format, so that none of them calls up into another.
 */
#include "internal.h"

uint64_t npyg_ctx_worst_case_alloc(const npyg_ctx *ctx, unsigned formats)
{
    if (!ctx) return 0;
    const npyg_limits *l = &ctx->limits;
    /* Each format's own bound (its file holds the formula), each counting
       the context itself: their sum is still a bound. */
    const struct {
        unsigned format;
        uint64_t bound;
    } parts[] = {
        {NPYG_BOUND_NPY, npyg_worst_case_alloc(l)},
        {NPYG_BOUND_RA, npyg_ra_worst_case_alloc(l)},
        {NPYG_BOUND_ZIP, npyg_zip_worst_case_alloc(l, &ctx->zip_limits)},
        {NPYG_BOUND_PICKLE, npyg_pickle_worst_case_alloc(&ctx->pickle_limits)},
        {NPYG_BOUND_HDF5, npyg_hdf5_worst_case_alloc(l, &ctx->hdf5_limits)},
    };
    uint64_t sum = 0;
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
        if ((formats & parts[i].format) && !npyg__add_u64(sum, parts[i].bound, &sum)) sum = UINT64_MAX;
    return sum < l->max_alloc_bytes ? sum : l->max_alloc_bytes;
}
