/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Every limit of every format, in one table: its name (the Python
 * keyword), its npyvalidate option, its default and range, and the worst
 * cases it enters. The context's setters, the per-format structs' defaults
 * and checks, the CLI's options, the Python keywords and the documents
 * all come from here. Pure data and lookups: the HDF5 helper links this
 * file on its own.
 */
#include "internal.h"

#include <stddef.h>
#include <string.h>

#define U32 UINT64_C(0xFFFFFFFF)
#define U64 UINT64_MAX

typedef struct row {
    npyg_limit_desc d;
    int group;     /* npyg__limit_group: the struct that holds it */
    size_t at;     /* offset of its field there */
    size_t size;   /* 4 or 8 */
} row;

#define FIELD(type, f) offsetof(type, f), sizeof(((type *)0)->f)
#define NPY(f) NPYG__LG_NPY, FIELD(npyg_limits, f)
#define ZIP(f) NPYG__LG_ZIP, FIELD(npyg_zip_limits, f)
#define PKL(f) NPYG__LG_PICKLE, FIELD(npyg_pickle_limits, f)
#define H5(f) NPYG__LG_HDF5, FIELD(npyg_hdf5_limits, f)
#define ROW(id, name, option, format, where, def, lo, hi, bounds, summary) \
    [NPYG_LIMIT_##id] = {{name, option, format, summary, def, lo, hi, bounds}, where}

#define NONE 0u                                         /* enters no worst case */
#define HEADER_BOUNDS (NPYG_BOUND_NPY | NPYG_BOUND_ZIP) /* an archive parses its members */
#define CTX sizeof(npyg_ctx)                            /* room for the context itself */
#define MIN_CHILD_MEMORY (UINT64_C(16) << 20)           /* 16 MiB */
#define DAY 86400u                                      /* seconds */

static const row rows[NPYG_LIMIT_END_] = {
    /* .npy, and what every format shares */
    ROW(MAX_HEADER_BYTES, "max_header_bytes", "max-header-bytes", "npy", NPY(max_header_bytes),
        NPYG_DEFAULT_MAX_HEADER_BYTES, 1, NPYG_MAX_HEADER_BYTES_CAP, HEADER_BOUNDS,
        "bytes of .npy header text (numpy's max_header_size)"),
    ROW(MAX_DIMS, "max_dims", "max-dims", "npy", NPY(max_dims),
        NPYG_DEFAULT_MAX_DIMS, 1, U32, NPYG_BOUND_RA,
        "dimensions of a shape (a warning above 32, numpy 1's)"),
    ROW(MAX_FIELDS, "max_fields", "max-fields", "npy", NPY(max_fields),
        NPYG_DEFAULT_MAX_FIELDS, 1, U32, NONE,
        "fields of a structured dtype, padding included"),
    ROW(MAX_DEPTH, "max_depth", "max-depth", "npy", NPY(max_depth),
        NPYG_DEFAULT_MAX_DEPTH, 1, NPYG_MAX_DEPTH_CAP, NONE,
        "nesting of the descr (structs and subarrays)"),
    ROW(MAX_ALLOC_BYTES, "max_alloc_bytes", "max-alloc", "npy", NPY(max_alloc_bytes),
        NPYG_DEFAULT_MAX_ALLOC_BYTES, CTX, U64, NPYG_BOUND_CAP,
        "bytes a context may hold at once, whatever the format"),
    ROW(MAX_PAYLOAD_BYTES, "max_payload_bytes", "max-payload", "npy", NPY(max_payload_bytes),
        NPYG_DEFAULT_MAX_PAYLOAD_BYTES, 0, U64, NPYG_BOUND_RA,
        "bytes of an array's data (and of each HDF5 dataset)"),
    /* .npz archives */
    ROW(MAX_MEMBERS, "max_members", "max-members", "npz", ZIP(max_members),
        NPYG_DEFAULT_MAX_MEMBERS, 0, NPYG_MAX_MEMBERS_CAP, NPYG_BOUND_ZIP,
        "members of an archive"),
    ROW(MAX_NAME_BYTES, "max_name_bytes", "max-name-bytes", "npz", ZIP(max_name_bytes),
        NPYG_DEFAULT_MAX_NAME_BYTES, 1, NPYG_MAX_NAME_BYTES_CAP, NPYG_BOUND_ZIP,
        "bytes of one member name"),
    ROW(MAX_TOTAL_UNCOMPRESSED, "max_total_uncompressed", "max-uncompressed", "npz", ZIP(max_total_uncompressed),
        NPYG_DEFAULT_MAX_TOTAL_UNCOMPRESSED, 0, U64, NONE,
        "bytes all members of an archive inflate to"),
    ROW(MAX_RATIO, "max_ratio", "max-ratio", "npz", ZIP(max_ratio),
        NPYG_DEFAULT_MAX_RATIO, 1, U64, NONE,
        "inflated / compressed bytes of a member past its ratio grace"),
    ROW(RATIO_GRACE_BYTES, "ratio_grace_bytes", "ratio-grace", "npz", ZIP(ratio_grace_bytes),
        NPYG_DEFAULT_RATIO_GRACE_BYTES, 0, U64, NONE,
        "bytes a member may inflate to whatever its ratio"),
    ROW(INFLATE_BUDGET_BYTES, "inflate_budget_bytes", "inflate-budget", "npz", ZIP(inflate_budget_bytes),
        NPYG_DEFAULT_INFLATE_BUDGET_BYTES, 0, U64, NONE,
        "deflated bytes an archive may declare, plus max-ratio x its size"),
    /* the pickle scan */
    ROW(MAX_PICKLE_BYTES, "max_pickle_bytes", "max-pickle-bytes", "pickle", PKL(max_bytes),
        NPYG_DEFAULT_PICKLE_MAX_BYTES, 1, U64, NONE,
        "bytes of an object array's pickle scanned"),
    ROW(MAX_PICKLE_OPS, "max_pickle_ops", "max-pickle-ops", "pickle", PKL(max_ops),
        NPYG_DEFAULT_PICKLE_MAX_OPS, 1, U64, NONE,
        "opcodes of a pickle scanned"),
    ROW(MAX_PICKLE_MEMO, "max_pickle_memo", "max-pickle-memo", "pickle", PKL(max_memo),
        NPYG_DEFAULT_PICKLE_MAX_MEMO, 1, NPYG_PICKLE_MAX_MEMO_CAP, NPYG_BOUND_PICKLE,
        "memo indices of a pickle"),
    ROW(MAX_PICKLE_STACK, "max_pickle_stack", "max-pickle-stack", "pickle", PKL(max_stack),
        NPYG_DEFAULT_PICKLE_MAX_STACK, 1, NPYG_PICKLE_MAX_STACK_CAP, NPYG_BOUND_PICKLE,
        "stack items plus open marks of a pickle"),
    ROW(MAX_PICKLE_STRING_BYTES, "max_pickle_string_bytes", "max-pickle-string-bytes", "pickle", PKL(max_string_bytes),
        NPYG_DEFAULT_PICKLE_MAX_STRING_BYTES, 1, NPYG_PICKLE_MAX_STRING_BYTES_CAP, NPYG_BOUND_PICKLE,
        "bytes of the strings kept to name imports"),
    ROW(MAX_PICKLE_IMPORTS, "max_pickle_imports", "max-pickle-imports", "pickle", PKL(max_imports),
        NPYG_DEFAULT_PICKLE_MAX_IMPORTS, 1, NPYG_PICKLE_MAX_IMPORTS_CAP, NPYG_BOUND_PICKLE,
        "distinct imports of a pickle reported"),
    /* the HDF5 scan and its child */
    ROW(MAX_OBJECTS, "max_objects", "max-objects", "hdf5", H5(max_objects),
        NPYG_DEFAULT_MAX_OBJECTS, 1, NPYG_MAX_OBJECTS_CAP, NONE,
        "HDF5 links, attributes and references scanned"),
    ROW(MAX_NESTING, "max_nesting", "max-nesting", "hdf5", H5(max_nesting),
        NPYG_DEFAULT_MAX_NESTING, 1, NPYG_MAX_NESTING_CAP, NONE,
        "HDF5 group depth"),
    ROW(MAX_PATHS, "max_paths", "max-paths", "hdf5", H5(max_paths),
        NPYG_DEFAULT_MAX_PATHS, 1, U64, NONE,
        "HDF5 objects a recursive reader visits, along every path"),
    ROW(MAX_REF_DEPTH, "max_ref_depth", "max-ref-depth", "hdf5", H5(max_ref_depth),
        NPYG_DEFAULT_MAX_REF_DEPTH, 1, NPYG_MAX_REF_DEPTH_CAP, NONE,
        "HDF5 references followed one after another"),
    ROW(HDF5_MEMORY_BYTES, "hdf5_memory_bytes", "hdf5-memory", "hdf5", H5(child_memory),
        NPYG_DEFAULT_CHILD_MEMORY, MIN_CHILD_MEMORY, U64, NONE,
        "bytes the HDF5 child may map beyond what it starts with"),
    ROW(HDF5_CPU_SECONDS, "hdf5_cpu_seconds", "hdf5-cpu", "hdf5", H5(child_cpu_seconds),
        NPYG_DEFAULT_CHILD_CPU_SECONDS, 1, DAY, NONE,
        "CPU seconds of the HDF5 child"),
    ROW(HDF5_WALL_SECONDS, "hdf5_wall_seconds", "hdf5-time", "hdf5", H5(child_wall_seconds),
        NPYG_DEFAULT_CHILD_WALL_SECONDS, 1, DAY, NONE,
        "wall-clock seconds of the HDF5 child before it is killed"),
    ROW(MAX_LOAD_BYTES, "max_load_bytes", "max-load-bytes", "hdf5", H5(max_load_bytes),
        NPYG_DEFAULT_MAX_LOAD_BYTES, 0, U64, NONE,
        "bytes an HDF5 load materialises, every value once per path and reference, beyond 100 per byte of the file"),
};

const npyg_limit_desc *npyg_limit_info(npyg_limit id)
{
    return (unsigned)id < NPYG_LIMIT_END_ ? &rows[id].d : NULL;
}

int npyg_limit_by_name(const char *name)
{
    if (!name) return -1;
    for (int id = 0; id < NPYG_LIMIT_END_; id++)
        if (!strcmp(name, rows[id].d.name) || !strcmp(name, rows[id].d.option)) return id;
    return -1;
}

int npyg__limit_group(npyg_limit id) { return rows[id].group; }

uint64_t npyg__limit_read(const void *group_struct, npyg_limit id)
{
    const char *p = (const char *)group_struct + rows[id].at;
    if (rows[id].size == 4) {
        uint32_t v;
        memcpy(&v, p, 4);
        return v;
    }
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

void npyg__limit_write(void *group_struct, npyg_limit id, uint64_t value)
{
    char *p = (char *)group_struct + rows[id].at;
    if (rows[id].size == 4) {
        uint32_t v = (uint32_t)value; /* every 4-byte limit's range fits */
        memcpy(p, &v, 4);
    } else {
        memcpy(p, &value, 8);
    }
}

bool npyg__limit_ok(npyg_limit id, uint64_t value)
{
    return (unsigned)id < NPYG_LIMIT_END_ && value >= rows[id].d.min && value <= rows[id].d.max;
}

void npyg__limits_fill(int group, void *s)
{
    for (int id = 0; id < NPYG_LIMIT_END_; id++)
        if (rows[id].group == group) npyg__limit_write(s, (npyg_limit)id, rows[id].d.default_value);
}

int npyg__limits_bad(int group, const void *s)
{
    for (int id = 0; id < NPYG_LIMIT_END_; id++)
        if (rows[id].group == group && !npyg__limit_ok((npyg_limit)id, npyg__limit_read(s, (npyg_limit)id)))
            return id;
    return -1;
}

bool npyg__limits_table_ok(void)
{
    for (int id = 0; id < NPYG_LIMIT_END_; id++) {
        const row *r = &rows[id];
        uint64_t top = r->size == 4 ? U32 : U64;
        if (!r->d.name || r->d.min > r->d.default_value || r->d.default_value > r->d.max || r->d.max > top)
            return false;
    }
    return true;
}
