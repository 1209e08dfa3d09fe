/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The datasets of an HDF5 or MAT v7.3 load (npyg_hdf5_load), one at a
 * time: the sink's callbacks gather each dataset's values and hand the
 * complete dataset to the collector's done() (extract.c writes it into a
 * .npz, hdf5hash.c hashes it). Attributes' values are read and dropped.
 */
#include "npyvalidate.h"

#include <stdlib.h>
#include <string.h>

static void drop(pending *p)
{
    for (int i = 0; i < 2; i++) free(p->buf[i]);
    memset(p, 0, sizeof *p);
}

static int flush(collector *c)
{
    free(c->scratch);
    c->scratch = NULL;
    int rc = c->p.active && !c->p.null_space ? c->done(c) : 0;
    drop(&c->p);
    return rc;
}

int collect_object(void *user, const npyg_hdf5_item *it)
{
    collector *c = user;
    if (flush(c)) return 1;
    if (it->kind != NPYG_HDF5_DATASET) return 0;
    pending *p = &c->p;
    p->active = true;
    snprintf(p->path, sizeof p->path, "%s", it->path);
    snprintf(p->form, sizeof p->form, "%s", it->form);
    p->null_space = it->null_space;
    return 0;
}

int collect_value(void *user, unsigned index, const npyg_info *in, void **buf)
{
    collector *c = user;
    pending *p = &c->p;
    if (!p->active || p->n > index) { /* an attribute's value */
        free(c->scratch);
        if (!(c->scratch = malloc((size_t)in->payload_bytes + 1))) die_oom();
        *buf = c->scratch;
        return 0;
    }
    if (in->ndim > MAX_DIMS || in->payload_bytes > SIZE_MAX - 1) {
        snprintf(c->why, sizeof c->why, "%s: too many dimensions or bytes for this tool", p->path);
        return 1;
    }
    if (!(p->buf[index] = malloc((size_t)in->payload_bytes + 1))) die_oom();
    p->size[index] = in->payload_bytes;
    p->n = index + 1;
    if (index == 0) {
        npyg_format_descr(in->dtype, p->descr, sizeof p->descr);
        p->ndim = in->ndim;
        if (in->ndim) memcpy(p->shape, in->shape, in->ndim * sizeof *in->shape);
    }
    *buf = p->buf[index];
    return 0;
}

void collect_end(void *user, int rc)
{
    collector *c = user;
    if (!rc) flush(c);
    free(c->scratch);
    c->scratch = NULL;
    drop(&c->p);
}
