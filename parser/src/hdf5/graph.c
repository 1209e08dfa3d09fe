/* SPDX-License-Identifier: BSD-3-Clause */
/* The walk's graph analysis, once every object and link is known:
 * cycles through references, the paths a recursive reader visits and how
 * deep references chain. */
#define _GNU_SOURCE
#include "h5walker.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The edges as adjacency lists: node u's edges are adj[start[u] ..
   start[u + 1]), indices into w->edges. false when out of memory. */
static bool build_adj(const walk *w, uint32_t **startp, uint32_t **adjp)
{
    uint32_t nn = w->nnodes, ne = w->nedges;
    uint32_t *start = calloc((size_t)nn + 1, sizeof *start), *adj = malloc(((size_t)ne + 1) * sizeof *adj);
    uint32_t *fill = calloc((size_t)nn + 1, sizeof *fill);
    if (!start || !adj || !fill) {
        free(start);
        free(adj);
        free(fill);
        return false;
    }
    for (uint32_t i = 0; i < ne; i++) start[w->edges[i].from + 1]++;
    for (uint32_t i = 0; i < nn; i++) start[i + 1] += start[i];
    for (uint32_t i = 0; i < ne; i++) adj[start[w->edges[i].from] + fill[w->edges[i].from]++] = i;
    free(fill);
    *startp = start;
    *adjp = adj;
    return true;
}

/* An iterative depth-first search's state: adjacency, colours
   (white/grey/black), the stack and each node's next edge. */
typedef struct {
    uint32_t *start, *adj, *stack, *pos;
    unsigned char *colour;
} dfs;

static bool dfs_init(const walk *w, dfs *d)
{
    size_t nn = (size_t)w->nnodes + 1;
    *d = (dfs){NULL, NULL, malloc(nn * sizeof(uint32_t)), calloc(nn, sizeof(uint32_t)), calloc(nn, 1)};
    return d->stack && d->pos && d->colour && build_adj(w, &d->start, &d->adj);
}

static void dfs_free(dfs *d)
{
    free(d->start);
    free(d->adj);
    free(d->stack);
    free(d->pos);
    free(d->colour);
}

/* Cycles through at least one reference (hard-link cycles are reported at
   their link). */
void npyg__h5w_find_ref_cycles(walk *w)
{
    uint32_t nn = w->nnodes;
    dfs d;
    if (!dfs_init(w, &d)) goto out;
    uint32_t *start = d.start, *adj = d.adj, *stack = d.stack, *pos = d.pos;
    unsigned char *colour = d.colour;
    for (uint32_t root = 0; root < nn; root++) {
        if (colour[root]) continue;
        uint32_t sp = 0;
        stack[sp++] = root;
        colour[root] = 1;
        while (sp) {
            uint32_t u = stack[sp - 1];
            if (pos[u] < start[u + 1] - start[u]) {
                const edge *e = &w->edges[adj[start[u] + pos[u]++]];
                if (colour[e->to] == 0) {
                    colour[e->to] = 1;
                    stack[sp++] = e->to;
                } else if (colour[e->to] == 1 && !e->reported) {
                    /* a back edge: the cycle runs through e->to */
                    npyg__h5w_hazard(w, NPYG_EHDF5_REFCYCLE, "dataset", w->nodes[e->to].path,
                           "references lead from here back to here (through '%s'): a reader that follows them never ends",
                           w->nodes[u].path);
                    w->edges[adj[start[u] + pos[u] - 1]].reported = true;
                }
            } else {
                colour[u] = 2;
                sp--;
            }
        }
    }
out:
    dfs_free(&d);
}

/* What a recursive reader (hdf5storage's read and loadmat, a loop over
   every group's keys) does with the graph of hard links, soft links and
   references from the root: it visits every object once per path that
   reaches it, so a few levels that each link twice to the next make
   exponentially many visits from a small file; and it recurses once per
   reference in a chain. Both by dynamic programming over the depth-first
   order: visits(u) = 1 + the sum of visits over u's edges, saturating;
   refdepth(u) = the most references on one path from u. Edges back into
   the search's stack are cycles, reported by find_ref_cycles. The count
   is kept twice: along every edge (hdf5storage) and along links only (a
   loop over keys, which walks #refs# too). */
void npyg__h5w_count_paths(walk *w)
{
    uint32_t nn = w->nnodes;
    dfs d;
    uint64_t *visits = calloc((size_t)nn + 1, sizeof *visits), *links = calloc((size_t)nn + 1, sizeof *links);
    uint32_t *depth = calloc((size_t)nn + 1, sizeof *depth);
    /* the bytes each kind of reader makes from u, the same way */
    uint64_t *made = calloc((size_t)nn + 1, sizeof *made), *made_l = calloc((size_t)nn + 1, sizeof *made_l);
    if (!dfs_init(w, &d) || !nn || !visits || !links || !depth || !made || !made_l) goto out;
    uint32_t *start = d.start, *adj = d.adj, *stack = d.stack, *pos = d.pos;
    unsigned char *colour = d.colour;
    uint32_t sp = 0;
    stack[sp++] = 0;
    colour[0] = 1;
    while (sp) {
        uint32_t u = stack[sp - 1];
        if (pos[u] < start[u + 1] - start[u]) {
            uint32_t to = w->edges[adj[start[u] + pos[u]++]].to;
            if (colour[to] == 0) {
                colour[to] = 1;
                stack[sp++] = to;
            }
            continue;
        }
        uint64_t v = 1, vl = 1, m = w->nodes[u].bytes, ml = m;
        uint32_t deep = 0;
        for (uint32_t k = start[u]; k < start[u + 1]; k++) {
            const edge *e = &w->edges[adj[k]];
            if (colour[e->to] != 2) continue;
            /* hdf5storage reads the root's objects but not its #refs#,
               which it reaches by the references */
            if (u == 0 && !strcmp(w->nodes[e->to].path, "/#refs#")) {
                if (!npyg__add_u64(vl, links[e->to], &vl)) vl = UINT64_MAX;
                if (!npyg__add_u64(ml, made_l[e->to], &ml)) ml = UINT64_MAX;
                continue;
            }
            if (!npyg__add_u64(v, visits[e->to], &v)) v = UINT64_MAX;
            if (!npyg__add_u64(m, made[e->to], &m)) m = UINT64_MAX;
            if (!e->ref && !npyg__add_u64(ml, made_l[e->to], &ml)) ml = UINT64_MAX;
            if (!e->ref && !npyg__add_u64(vl, links[e->to], &vl)) vl = UINT64_MAX;
            if (depth[e->to] + e->ref > deep) deep = depth[e->to] + e->ref;
        }
        visits[u] = v;
        links[u] = vl;
        made[u] = m;
        made_l[u] = ml;
        depth[u] = deep;
        colour[u] = 2;
        sp--;
    }
    /* two kinds of reader: hdf5storage follows links and references, an
       h5py loop over every group's keys follows links only */
    uint64_t most = visits[0] > links[0] ? visits[0] : links[0];
    if (most > w->p->max_paths)
        npyg__h5w_hazard(w, NPYG_ELIMIT_PATHS, "file", "/",
               "a recursive reader visits %llu%s objects along every path of links and references, more than "
               "max_paths (%llu): they reach the same objects many times",
               (unsigned long long)most, most == UINT64_MAX ? " or more" : "", (unsigned long long)w->p->max_paths);
    /* a load sends every path's value, and hdf5storage makes one per
       reference: the caller would hold this much (said of a file that
       nothing else refuses: a refused file is not loaded) */
    uint64_t load = made[0] > made_l[0] ? made[0] : made_l[0], budget = npyg__h5_load_budget(w->p->max_load, w->file_size);
    if (load > budget && !w->hazards)
        npyg__h5w_hazard(w, NPYG_ELIMIT_LOAD, "file", "/",
               "loading it makes %llu%s bytes of values along every path of links and references, more than "
               "its budget of %llu (max_load_bytes %llu + %u per byte of the file)", (unsigned long long)load,
               load == UINT64_MAX ? " or more" : "", (unsigned long long)budget, (unsigned long long)w->p->max_load,
               NPYG_LOAD_BYTES_PER_BYTE);
    if (depth[0] > w->p->max_ref_depth) {
        /* name the object where the deepest chain of references starts */
        uint32_t u = 0;
        for (bool more = true; more;) {
            more = false;
            for (uint32_t k = start[u]; k < start[u + 1]; k++) {
                const edge *e = &w->edges[adj[k]];
                if (colour[e->to] != 2 || depth[e->to] + e->ref != depth[u]) continue;
                more = !e->ref; /* down the tree to the first reference */
                if (more) u = e->to;
                break;
            }
        }
        npyg__h5w_hazard(w, NPYG_ELIMIT_REFDEPTH, "dataset", w->nodes[u].path,
               "references chained %u deep from here, more than max_ref_depth (%u): a reader that follows "
               "them recurses that deep", depth[u], w->p->max_ref_depth);
    }
out:
    dfs_free(&d);
    free(visits);
    free(links);
    free(made);
    free(made_l);
    free(depth);
}
