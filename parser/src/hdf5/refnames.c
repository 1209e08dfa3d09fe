/* SPDX-License-Identifier: BSD-3-Clause */
/* Object references named at a cost linear in the file.
 *
 * H5Rget_name searches the file's links from the root for every
 * reference it names (H5G_get_name_by_addr: a visit of the links over the
 * name index in native order, until one reaches the address), so loading
 * a cell of N references cost N visits of N objects: 2,000 cells took
 * seconds, 5,000 ran out of time. H5Ovisit2 makes the same visit (the
 * same H5G_visit, index and order) once and reports each object under
 * the first link that reaches it, which is the name H5Rget_name gives.
 * The names are kept by address for the rest of the file's load.
 */
#include "refnames.h"

#include <stdlib.h>
#include <string.h>

struct npyg__h5_refname {
    haddr_t addr;
    char *path;
    size_t len;
};

static size_t slot(haddr_t a, size_t cap)
{
    uint64_t x = (uint64_t)a * UINT64_C(0x9E3779B97F4A7C15);
    return (size_t)(x >> 20) & (cap - 1);
}

static struct npyg__h5_refname *find(const npyg__h5_refnames *m, haddr_t addr)
{
    if (!m->cap) return NULL;
    for (size_t k = slot(addr, m->cap);; k = (k + 1) & (m->cap - 1)) {
        struct npyg__h5_refname *e = &m->tab[k];
        if (!e->path || e->addr == addr) return e;
    }
}

static bool grow(npyg__h5_refnames *m)
{
    size_t cap = m->cap ? 2 * m->cap : 1024;
    struct npyg__h5_refname *old = m->tab, *tab = calloc(cap, sizeof *tab);
    if (!tab) return false;
    size_t oldcap = m->cap;
    m->tab = tab;
    m->cap = cap;
    for (size_t i = 0; i < oldcap; i++)
        if (old[i].path) *find(m, old[i].addr) = old[i];
    free(old);
    return true;
}

/* The first name met for each address is kept, as H5Rget_name stops at
   the first link that reaches it. */
static herr_t visit_cb(hid_t obj, const char *name, const H5O_info_t *info, void *data)
{
    (void)obj;
    npyg__h5_refnames *m = data;
    if ((m->n + 1) * 2 > m->cap && !grow(m)) return -1;
    struct npyg__h5_refname *e = find(m, info->addr);
    if (e->path) return 0;
    bool root = !strcmp(name, ".");
    size_t n = root ? 0 : strlen(name);
    char *p = malloc(n + 2);
    if (!p) return -1;
    p[0] = '/';
    memcpy(p + 1, name, n);
    p[n + 1] = '\0';
    *e = (struct npyg__h5_refname){info->addr, p, n + 1};
    m->n++;
    return 0;
}

const char *npyg__h5_refname(npyg__h5_refnames *m, hid_t file, haddr_t addr, size_t *len)
{
    if (!m->built) {
        m->built = true;
        hid_t root = H5Gopen2(file, "/", H5P_DEFAULT);
        if (root < 0 || H5Ovisit2(root, H5_INDEX_NAME, H5_ITER_NATIVE, visit_cb, m, H5O_INFO_BASIC) < 0)
            m->failed = true;
        if (root >= 0) H5Gclose(root);
    }
    if (m->failed) return NULL;
    const struct npyg__h5_refname *e = find(m, addr);
    if (!e || !e->path) return NULL;
    *len = e->len;
    return e->path;
}

void npyg__h5_refnames_free(npyg__h5_refnames *m)
{
    for (size_t i = 0; i < m->cap; i++) free(m->tab[i].path);
    free(m->tab);
    memset(m, 0, sizeof *m);
}
