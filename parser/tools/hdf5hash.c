/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * --hash of an HDF5 or MAT v7.3 file: the SHA-256 of each dataset's
 * payload as read in the sandbox (C order, the dtype extract.c writes;
 * lengths then data for the variable-length forms), kept by the path the
 * scan's records show, for report.c to print on each dataset's line.
 */
#include "npyvalidate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct hasher {
    collector c;
    const options *o;
    hdf5_hashes *out;
} hasher;

static int hash_dataset(collector *c)
{
    hasher *h = (hasher *)c;
    const sha256_api *api = h->o->sha256;
    EVP_MD_CTX *md = api->ctx_new();
    unsigned char d[32];
    unsigned int dl = 0;
    bool ok = md && api->init(md, api->sha256(), NULL) == 1;
    for (unsigned i = 0; ok && i < c->p.n; i++) ok = api->update(md, c->p.buf[i], (size_t)c->p.size[i]) == 1;
    ok = ok && api->final(md, d, &dl) == 1 && dl == 32;
    if (md) api->ctx_free(md);
    if (!ok) die_oom();
    hdf5_hashes *o = h->out;
    if (o->n == o->cap) {
        o->cap = o->cap ? 2 * o->cap : 64;
        if (!(o->v = realloc(o->v, o->cap * sizeof *o->v))) die_oom();
    }
    /* as the scan's records escape it (h5internal.h) */
    static const char hex[] = "0123456789abcdef";
    char *key = malloc(4 * strlen(c->p.path) + 1), *k = key;
    if (!key) die_oom();
    for (const unsigned char *s = (const unsigned char *)c->p.path; *s; s++)
        if (*s < 0x20 || *s >= 0x7f || *s == '\\') *k++ = '\\', *k++ = 'x', *k++ = hex[*s >> 4], *k++ = hex[*s & 15];
        else *k++ = (char)*s;
    *k = '\0';
    o->v[o->n].path = key;
    for (unsigned j = 0; j < 32; j++) snprintf(o->v[o->n].sha + 2 * j, 3, "%02x", d[j]);
    o->n++;
    return 0;
}

static int by_path(const void *a, const void *b)
{
    return strcmp(((const hdf5_hash *)a)->path, ((const hdf5_hash *)b)->path);
}

int hdf5_hash_datasets(const options *o, npyg_ctx *ctx, int fd, hdf5_hashes *out)
{
    hasher h;
    memset(&h, 0, sizeof h);
    h.c.done = hash_dataset;
    h.o = o;
    h.out = out;
    npyg_hdf5_sink sink = {collect_object, collect_value, collect_end, &h.c};
    npyg_set_input_fd(ctx, fd);
    int rc = npyg_hdf5_load(ctx, NULL, &sink);
    if (out->n) qsort(out->v, out->n, sizeof *out->v, by_path);
    return rc;
}

const char *hdf5_hash_of(const hdf5_hashes *h, const char *shown_path)
{
    if (!h || !h->n) return NULL;
    hdf5_hash key = {(char *)shown_path, ""};
    const hdf5_hash *f = bsearch(&key, h->v, h->n, sizeof *h->v, by_path);
    return f ? f->sha : NULL;
}

void hdf5_hashes_free(hdf5_hashes *h)
{
    for (size_t i = 0; i < h->n; i++) free(h->v[i].path);
    free(h->v);
    memset(h, 0, sizeof *h);
}
