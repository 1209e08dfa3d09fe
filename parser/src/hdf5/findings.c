/* SPDX-License-Identifier: BSD-3-Clause */
/* The walk's findings: refusals as object records, and the bytes readers
 * make from few stored ones, counted against the file's budget. Shared by
 * the walk (walk.c) and its checks (heap.c, graph.c). */
#define _GNU_SOURCE
#include "h5walker.h"

#include <stdarg.h>
#include <stdio.h>

void npyg__h5w_hazard(walk *w, int code, const char *kind, const char *path, const char *fmt, ...)
{
    char msg[NPYG__H5_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    npyg__h5_rec_object(&w->ch, code, 0, kind, "", -1, NULL, path, msg);
    w->hazards++;
}

/* A hazard of a dataset, with its type and shape. */
void npyg__h5w_dhazard(walk *w, int code, const char *type, int ndim, const hsize_t *dims, const char *path,
                    const char *fmt, ...)
{
    char msg[NPYG__H5_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    npyg__h5_rec_object(&w->ch, code, 0, "dataset", type, ndim, dims, path, msg);
    w->hazards++;
}

/* An object libhdf5 failed on: "libhdf5 cannot WHAT: its own words". */
void npyg__h5w_failed(walk *w, const char *kind, const char *path, const char *what)
{
    char e[160];
    npyg__h5_last_error(e);
    npyg__h5w_hazard(w, NPYG_EHDF5_OBJECT, kind, path, "libhdf5 cannot %s: %s", what, e);
}

/* Bytes a reader makes from few stored ones: chunks that inflate, chunks
   never written (read as the fill value), the values hdf5storage builds
   with np.zeros. Held to the budget .npz archives get (zip.c): each past
   the ratio grace at most max_ratio times what it stores, all together
   at most the inflate budget plus max_ratio times the file's size. */
void npyg__h5w_inflate(walk *w, const char *type, int ndim, const hsize_t *dims, const char *path,
                    const char *what, uint64_t made, uint64_t stored)
{
    if (made <= stored) return;
    uint64_t cap;
    if (made > NPYG_DEFAULT_RATIO_GRACE_BYTES &&
        (!npyg__mul_u64(stored, NPYG_DEFAULT_MAX_RATIO, &cap) || made > cap)) {
        npyg__h5w_dhazard(w, NPYG_EHDF5_INFLATE, type, ndim, dims, path,
                "%s %llu bytes from %llu stored: more than %u times, past the ratio grace of %llu bytes", what,
                (unsigned long long)made, (unsigned long long)stored, NPYG_DEFAULT_MAX_RATIO,
                (unsigned long long)NPYG_DEFAULT_RATIO_GRACE_BYTES);
        return;
    }
    uint64_t budget = UINT64_MAX;
    if (npyg__mul_u64(w->file_size, NPYG_DEFAULT_MAX_RATIO, &cap))
        npyg__add_u64(cap, NPYG_DEFAULT_INFLATE_BUDGET_BYTES, &budget);
    if (w->made_over) return;
    if (!npyg__add_u64(w->made, made, &w->made) || w->made > budget) {
        w->made_over = true;
        npyg__h5w_dhazard(w, NPYG_EHDF5_INFLATE, type, ndim, dims, path,
                "%s %llu bytes; with the datasets before it, more than the file's budget of %llu bytes", what,
                (unsigned long long)made, (unsigned long long)budget);
    }
}
