/* SPDX-License-Identifier: BSD-3-Clause */
/* The walk's state, shared by the walk (walk.c), its check of
   variable-length data against the global heap (heap.c), its graph
   analysis (graph.c) and the findings all of them report (findings.c).
   Not installed. */
#ifndef NPYG_H5WALKER_H
#define NPYG_H5WALKER_H

#include "h5internal.h"

#include "h5io.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct {
    haddr_t addr;
    char *path;      /* where the walk first met it */
    bool group;
    uint64_t bytes;  /* a dataset's value as a reader makes it */
} node;

typedef struct {
    uint32_t from, to;
    bool ref;        /* a reference; else a hard link */
    bool reported;   /* a hard-link cycle already reported at the link */
} edge;

typedef struct {
    hid_t gid;
    uint32_t node;
    uint32_t depth;
} qitem;

/* References to follow once the tree is walked: a dataset's or an
   attribute's elements, or one member of their compound elements. */
typedef struct {
    hid_t obj;
    bool attr;
    bool region;
    char *member;    /* NULL: the elements are the references */
    char *path;
    uint32_t node;
    hssize_t np;
} pending;

/* A soft link's target, joined to the graph once every object is known. */
typedef struct {
    uint32_t from;
    haddr_t addr;
} softedge;

typedef struct {
    npyg__h5_chan ch;
    const npyg__h5_params *p;
    hid_t file;
    uint64_t visits;   /* links, attributes, references: against max_objects */
    bool over;         /* max_objects reached: stop */
    int hazards;

    node *nodes;
    uint32_t nnodes, capnodes;
    uint32_t *hash;    /* open addressing: node index + 1, 0 empty */
    uint32_t hashcap;

    edge *edges;
    uint32_t nedges, capedges;

    qitem *queue;
    uint32_t qhead, qtail, qcap;

    /* reference datasets, followed once the tree is walked, so that
       objects are named by their links before references reach them */
    pending *refs;
    uint32_t nrefs, caprefs;

    softedge *softs;
    uint32_t nsofts, capsofts;

    /* bytes readers make from few stored ones (inflate()) */
    uint64_t file_size;
    uint64_t made;
    bool made_over;

    /* vlen checks (vlen_ok): the file as bytes, and the global heap
       objects met so far, keyed by (collection, index) */
    const unsigned char *image; /* NULL: the vlen data cannot be checked */
    uint64_t image_size;
    uint64_t base;       /* where addresses count from (the user block) */
    size_t sizeof_addr, sizeof_len;
    hid_t raw_type;      /* an opaque type as wide as a vlen descriptor on disk */
    struct hobj *heap;
    uint32_t nheap, capheap;
} walk;

/* ---------------- findings.c */

/* A refusal of the object at path (kind: "dataset", "group", ...). */
void npyg__h5w_hazard(walk *w, int code, const char *kind, const char *path, const char *fmt, ...)
    NPYG__PRINTF(5, 6);
/* A refusal of a dataset, with its type and shape. */
void npyg__h5w_dhazard(walk *w, int code, const char *type, int ndim, const hsize_t *dims, const char *path,
                       const char *fmt, ...) NPYG__PRINTF(7, 8);
/* An object libhdf5 failed on: "libhdf5 cannot WHAT: its own words". */
void npyg__h5w_failed(walk *w, const char *kind, const char *path, const char *what);
/* Counts bytes a reader makes (made) from few stored ones (stored):
   refused past max_load, or past what the file's size allows. */
void npyg__h5w_inflate(walk *w, const char *type, int ndim, const hsize_t *dims, const char *path,
                       const char *what, uint64_t made, uint64_t stored);

/* ---------------- heap.c */

/* Before the walk: the file's bytes (image, size; NULL: vlen data cannot
   be checked) and the raw conversion of vlen descriptors. */
void npyg__h5w_vlen_setup(walk *w, const void *image, uint64_t size);
void npyg__h5w_vlen_teardown(walk *w);
/* Checks every vlen element of obj (a dataset or an attribute of type t)
   before anything converts it; false after a hazard. */
bool npyg__h5w_vlen_ok(walk *w, hid_t obj, bool attr, hid_t t, hssize_t np, const char *kind, const char *path);

/* ---------------- graph.c */

/* Cycles through references: refused, as a recursive reader never ends. */
void npyg__h5w_find_ref_cycles(walk *w);
/* Paths a recursive reader visits, and how deep references chain:
   refused past max_paths and max_ref_depth. */
void npyg__h5w_count_paths(walk *w);

#endif
