/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Checks the HDF5 / MAT v7.3 scan against corpus/hdf5/manifest.json, whose
 * files gen/gen_hdf5.py wrote with hdf5storage and h5py:
 *  - every file's verdict: the error code the manifest expects (MAT v5/v4,
 *    bad MAT headers, a file libhdf5 cannot open), or the exact set of
 *    (hazard code, object path) pairs, under the numpy and the strict
 *    profile; hdf5storage's own files give no hazard and no warning under
 *    either; files whose attributes contradict their data give a
 *    storage-format warning (numpy) or NPYG_EHDF5_FORMAT (strict) at the
 *    manifest's path;
 *  - every dataset reported without a hazard has the type and the shape
 *    h5py reads (the manifest's h5py_datasets: numpy typestr and shape);
 *  - the parent's allocation bound: an allocator that refuses past
 *    npyg_hdf5_worst_case_alloc() is never refused, and nothing leaks.
 * Usage: test_hdf5 CORPUS_HDF5_DIR
 */
#include "npyguard.h"
#include "testutil.h"

#include <fcntl.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAXH 64

#define MAXD 512

typedef struct {
    int code[MAXH];
    char path[MAXH][256];
    int n;
    int warn_n;
    char warn_path[MAXH][256];
    int objects;
    int nd;
    char dpath[MAXD][128];
    char dtype[MAXD][32];
    uint32_t ndim[MAXD];
    uint64_t shape[MAXD][8];
} seen;

static int collect(void *user, const npyg_hdf5_object *o)
{
    seen *s = user;
    s->objects++;
    if (o->code && s->n < MAXH) {
        s->code[s->n] = o->code;
        snprintf(s->path[s->n++], 256, "%s", o->path);
    }
    if (o->warnings && s->warn_n < MAXH) snprintf(s->warn_path[s->warn_n++], 256, "%s", o->path);
    if (!o->code && o->kind == NPYG_HDF5_DATASET && s->nd < MAXD && o->ndim <= 8) {
        snprintf(s->dpath[s->nd], 128, "%s", o->path);
        snprintf(s->dtype[s->nd], 32, "%s", o->type);
        s->ndim[s->nd] = o->ndim;
        for (uint32_t k = 0; k < o->ndim; k++) s->shape[s->nd][k] = o->shape[k];
        s->nd++;
    }
    return 0;
}

static bool has(const seen *s, int code, const char *path)
{
    for (int i = 0; i < s->n; i++)
        if (s->code[i] == code && !strcmp(s->path[i], path)) return true;
    return false;
}

/* The name npyguard gives the HDF5 type h5py reads as this numpy typestr. */
static void name_of_typestr(const char *ts, char *out, size_t size)
{
    char kind = ts[1];
    unsigned long n = strtoul(ts + 2, NULL, 10);
    switch (kind) {
    case 'f': snprintf(out, size, "float%lu", n * 8); break;
    case 'i': snprintf(out, size, "int%lu", n * 8); break;
    case 'u': snprintf(out, size, "uint%lu", n * 8); break;
    case 'c': snprintf(out, size, "complex%lu", n * 8); break;
    case 'b': snprintf(out, size, "bool"); break;
    case 'S': snprintf(out, size, "bytes%lu", n); break;
    case 'V': snprintf(out, size, "compound%lu", n); break;
    case 'O': snprintf(out, size, "object reference"); break;
    default: snprintf(out, size, "?%s", ts); break;
    }
}

static void check_datasets(const seen *s, const json_t *ds)
{
    if (!ds) return;
    for (int i = 0; i < s->nd; i++) {
        const json_t *d = json_object_get(ds, s->dpath[i]);
        if (!d) continue; /* reached through a reference only, or h5py cannot see it */
        char want[48];
        name_of_typestr(json_string_value(json_array_get(d, 0)), want, sizeof want);
        TU_CHECK(!strcmp(want, s->dtype[i]), "%s: type %s, h5py reads %s", s->dpath[i], s->dtype[i], want);
        const json_t *sh = json_array_get(d, 1);
        if (!json_is_array(sh)) continue;
        bool same = json_array_size(sh) == s->ndim[i];
        for (size_t k = 0; same && k < json_array_size(sh); k++)
            same = (uint64_t)json_integer_value(json_array_get(sh, k)) == s->shape[i][k];
        TU_CHECK(same, "%s: shape differs from h5py's (ndim %u, h5py %zu)", s->dpath[i], s->ndim[i],
                 json_array_size(sh));
    }
}

static int scan(const char *file, npyg_profile prof, const npyg_limits *lim, const npyg_hdf5_limits *hl,
                seen *s, tu_alloc *ta)
{
    npyg_alloc al = tu_allocator(ta);
    npyg_options o = {prof, lim, &al, 0};
    npyg_ctx *ctx = npyg_ctx_new(&o);
    if (!ctx) return -1;
    memset(s, 0, sizeof *s);
    int fd = open(file, O_RDONLY);
    npyg_set_input_fd(ctx, fd);
    int rc = fd < 0 ? -1 : npyg_hdf5_scan(ctx, hl, collect, s);
    if (rc > 0) {
        const npyg_error *e = npyg_last_error(ctx);
        TU_CHECK(e->code == rc, "last error %d but scan returned %d", e->code, rc);
        TU_CHECK(e->message[0] != '\0', "error %d without a message", rc);
    }
    if (fd >= 0) close(fd);
    npyg_ctx_free(ctx);
    return rc;
}

/* max_paths and max_ref_depth are limits, not rules: the files built to
   pass them (ref-chain.h5: 341 references in a row; dag-links.h5: 6132
   visits by a loop over every group's keys, 1 + 3071 + 3060 from the root,
   /a and /#refs#) are ok once the limit is above what they need, and refused at
   exactly one below; out-of-range values are invalid limits. */
static void check_reader_limits(const char *dir)
{
    static const struct {
        const char *file;
        int code;
        uint64_t need;
        bool depth;
    } cases[] = {{"hazard/ref-chain.h5", NPYG_ELIMIT_REFDEPTH, 341, true},
                 {"hazard/dag-links.h5", NPYG_ELIMIT_PATHS, 6132, false}};
    npyg_limits lim;
    npyg_limits_default(&lim);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char file[4096];
        snprintf(file, sizeof file, "%s/%s", dir, cases[i].file);
        tu_current = cases[i].file;
        for (int below = 0; below < 2; below++) {
            npyg_hdf5_limits hl;
            npyg_hdf5_limits_default(&hl);
            uint64_t v = cases[i].need - (uint64_t)below;
            if (cases[i].depth) hl.max_ref_depth = (uint32_t)v;
            else hl.max_paths = v;
            uint64_t bound = npyg_hdf5_worst_case_alloc(&lim, &hl);
            seen s;
            tu_alloc ta;
            tu_alloc_init(&ta, bound);
            int rc = scan(file, NPYG_PROFILE_NUMPY, &lim, &hl, &s, &ta);
            TU_CHECK(rc == (below ? cases[i].code : 0), "limit %llu: %d (%s)", (unsigned long long)v, rc,
                     npyg_error_name(rc));
        }
    }
    npyg_hdf5_limits hl;
    npyg_hdf5_limits_default(&hl);
    TU_CHECK(hl.max_paths == NPYG_DEFAULT_MAX_PATHS && hl.max_ref_depth == NPYG_DEFAULT_MAX_REF_DEPTH,
             "defaults not set");
    hl.max_ref_depth = NPYG_MAX_REF_DEPTH_CAP + 1;
    TU_CHECK(npyg_hdf5_worst_case_alloc(&lim, &hl) == 0, "max_ref_depth above its cap accepted");
    hl.max_ref_depth = 0;
    TU_CHECK(npyg_hdf5_worst_case_alloc(&lim, &hl) == 0, "max_ref_depth 0 accepted");
    npyg_hdf5_limits_default(&hl);
    hl.max_paths = 0;
    TU_CHECK(npyg_hdf5_worst_case_alloc(&lim, &hl) == 0, "max_paths 0 accepted");
}

static int count_object(void *user, const npyg_hdf5_object *obj)
{
    (void)obj;
    (*(int *)user)++;
    return 0;
}

/* A scan with ctx of the file open on fd: 0 and some object, or the code. */
static int scan_with(npyg_ctx *ctx, int fd)
{
    int n = 0;
    npyg_set_input_fd(ctx, fd);
    int rc = fd < 0 || lseek(fd, 0, SEEK_SET) != 0 ? -1 : npyg_hdf5_scan(ctx, NULL, count_object, &n);
    return rc == 0 && n == 0 ? -2 : rc;
}

/* A context's helper belongs to the process that started it. A fork's
   child that scans with its copy of the context starts a helper of its
   own, and one that frees the copy leaves the parent's running: the
   parent's next scans go on through its helper, undisturbed. */
static void fork_leaves_the_parents_helper(const char *dir)
{
    tu_current = "fork";
    char file[4096];
    snprintf(file, sizeof file, "%s/valid/h5/bool.h5", dir);
    /* opened once, here: test_hdf5_noopen.py holds every other process
       this test forks to opening nothing before it runs the helper */
    int fd = open(file, O_RDONLY);
    npyg_ctx *ctx = npyg_ctx_new(NULL);
    TU_CHECK(scan_with(ctx, fd) == 0, "the parent's first scan: %s", npyg_last_error(ctx)->message);
    for (int child_scans = 0; child_scans < 2; child_scans++) {
        fflush(NULL);
        pid_t pid = fork();
        if (pid == 0) {
            int rc = child_scans ? scan_with(ctx, fd) : 0;
            npyg_ctx_free(ctx);
            _exit(rc == 0 ? 0 : 1);
        }
        int status = -1;
        TU_CHECK(pid > 0 && waitpid(pid, &status, 0) == pid, "fork");
        TU_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the child's scan with its copy (status %d)", status);
        for (int k = 0; k < 2; k++)
            TU_CHECK(scan_with(ctx, fd) == 0, "the parent's scan after a child %s: %s",
                     child_scans ? "scanned and freed its copy" : "freed its copy", npyg_last_error(ctx)->message);
    }
    npyg_ctx_free(ctx);
    if (fd >= 0) close(fd);
}

int main(int argc, char **argv)
{
    if (tu_bad_args(argc, 2, "test_hdf5 CORPUS_HDF5_DIR")) return 2;
    if (!npyg_hdf5_available()) {
        printf("SKIP: built without libhdf5\n");
        return 77;
    }
    json_t *m = tu_load_manifest(argv[1]);
    if (!m) return 2;
    const char *rel;
    json_t *e;
    int files = 0;
    json_object_foreach(json_object_get(m, "files"), rel, e) {
        char file[4096];
        snprintf(file, sizeof file, "%s/%s", argv[1], rel);
        tu_current = rel;
        files++;
        npyg_limits lim;
        npyg_limits_default(&lim);
        npyg_hdf5_limits hl;
        npyg_hdf5_limits_default(&hl);
        json_t *jl = json_object_get(e, "limits");
        if (jl && json_object_get(jl, "max_objects"))
            hl.max_objects = (uint32_t)json_integer_value(json_object_get(jl, "max_objects"));
        if (jl && json_object_get(jl, "max_paths"))
            hl.max_paths = (uint64_t)json_integer_value(json_object_get(jl, "max_paths"));
        if (jl && json_object_get(jl, "max_payload_bytes"))
            lim.max_payload_bytes = (uint64_t)json_integer_value(json_object_get(jl, "max_payload_bytes"));
        uint64_t bound = npyg_hdf5_worst_case_alloc(&lim, &hl);
        TU_CHECK(bound > 0 && bound <= lim.max_alloc_bytes, "worst case %llu", (unsigned long long)bound);
        const char *verdict = json_string_value(json_object_get(e, "verdict"));
        json_t *want_err = json_object_get(e, "error");
        json_t *hz = json_object_get(e, "hazards");
        for (int strict = 0; strict < 2; strict++) {
            seen s;
            tu_alloc ta;
            tu_alloc_init(&ta, bound);
            int rc = scan(file, strict ? NPYG_PROFILE_STRICT : NPYG_PROFILE_NUMPY, &lim, &hl, &s, &ta);
            TU_CHECK(ta.refused == 0, "allocation past npyg_hdf5_worst_case_alloc (%llu)", (unsigned long long)bound);
            TU_CHECK(ta.now == 0, "%llu bytes leaked", (unsigned long long)ta.now);
            check_datasets(&s, json_object_get(e, "h5py_datasets"));
            if (want_err) {
                int want = (int)json_integer_value(want_err);
                TU_CHECK(rc == want, "%s: error %d (%s), want %d (%s)", strict ? "strict" : "numpy", rc,
                         npyg_error_name(rc), want, npyg_error_name(want));
                continue;
            }
            bool format_only = !strcmp(verdict, "ok") && json_array_size(hz) > 0;
            if (format_only) {
                /* storage-format contradictions: warnings, or errors when strict */
                const char *p = json_string_value(json_array_get(json_array_get(hz, 0), 1));
                if (strict) {
                    TU_CHECK(rc == NPYG_EHDF5_FORMAT, "strict: %d (%s), want NPYG_EHDF5_FORMAT", rc, npyg_error_name(rc));
                    TU_CHECK(has(&s, NPYG_EHDF5_FORMAT, p), "strict: no NPYG_EHDF5_FORMAT at %s", p);
                } else {
                    TU_CHECK(rc == 0, "numpy: %d (%s), want 0", rc, npyg_error_name(rc));
                    bool w = false;
                    for (int i = 0; i < s.warn_n; i++) w |= !strcmp(s.warn_path[i], p);
                    TU_CHECK(w, "numpy: no storage-format warning at %s", p);
                }
                continue;
            }
            if (!strcmp(verdict, "ok")) {
                TU_CHECK(rc == 0, "%s: %d (%s): %s", strict ? "strict" : "numpy", rc, npyg_error_name(rc),
                         s.n ? s.path[0] : "");
                TU_CHECK(s.warn_n == 0, "%s: warning at %s", strict ? "strict" : "numpy", s.warn_n ? s.warn_path[0] : "");
                TU_CHECK(s.objects > 0, "no object reported");
                continue;
            }
            /* unsafe: exactly the manifest's hazards */
            TU_CHECK(rc != 0 && rc == (s.n ? s.code[0] : -1), "verdict %d (%s), first hazard %d", rc,
                     npyg_error_name(rc), s.n ? s.code[0] : 0);
            TU_CHECK((size_t)s.n == json_array_size(hz), "%d hazards, manifest %zu (first: %d %s)", s.n,
                     json_array_size(hz), s.n ? s.code[0] : 0, s.n ? s.path[0] : "");
            for (size_t i = 0; i < json_array_size(hz); i++) {
                int c = (int)json_integer_value(json_array_get(json_array_get(hz, i), 0));
                const char *p = json_string_value(json_array_get(json_array_get(hz, i), 1));
                TU_CHECK(has(&s, c, p), "no hazard %d (%s) at %s", c, npyg_error_name(c), p);
            }
        }
    }
    json_decref(m);
    check_reader_limits(argv[1]);
    fork_leaves_the_parents_helper(argv[1]);
    printf("test_hdf5: %d files, %d checks passed, %d failed\n", files, tu_passed, tu_failed);
    return tu_failed ? 1 : 0;
}
