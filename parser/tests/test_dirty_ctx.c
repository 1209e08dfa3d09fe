/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What a parse may allocate never depends on the parses before it
 * (internal.h, npyg__charge). Every file of the corpus gets the same
 * verdict (code, offset, offset space and message; for an archive, every
 * member's; for an object array, the pickle scan's) on a context that
 * first read the dirtiest file of each format, the one that leaves a
 * context holding the most, as on a new context; and again when the whole
 * corpus is replayed on one context, in file order and in reverse.
 *
 * Under three sets of limits: the defaults; max_alloc_bytes 1 MiB; and
 * 1 MiB with max_header_bytes 1 MiB, so that the corpus's 66 KB header is
 * parsed and leaves its blocks behind. Through a buffer, and through a
 * read callback, which leaves the context its read buffer.
 *
 * Usage: test_dirty_ctx CORPUS_DIR
 */
#include "npyguard.h"
#include "testutil.h"

#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char *const groups[] = {"valid", "invalid", "compat", "unsafe", "npz", "ra", "pickle"};

typedef struct file {
    char *name; /* relative to the corpus */
    unsigned char *buf;
    size_t len;
} file;

typedef struct corpus {
    file *f;
    size_t n, cap;
} corpus;

static int by_name(const void *a, const void *b)
{
    return strcmp(((const file *)a)->name, ((const file *)b)->name);
}

static void walk(corpus *c, const char *root, const char *rel)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    DIR *d = opendir(path);
    if (!d) { TU_CHECK(0, "cannot open %s", path); return; }
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        const char *n = de->d_name;
        size_t nl = strlen(n);
        if (n[0] == '.' || (nl > 3 && !strcmp(n + nl - 3, ".md")) || (nl > 5 && !strcmp(n + nl - 5, ".json"))) continue;
        char sub[4096], full[8192];
        snprintf(sub, sizeof sub, "%s/%s", rel, n);
        snprintf(full, sizeof full, "%s/%s", root, sub);
        struct stat st;
        if (stat(full, &st) != 0) continue;
        if (S_ISDIR(st.st_mode)) {
            walk(c, root, sub);
            continue;
        }
        if (c->n == c->cap) {
            c->cap = c->cap ? 2 * c->cap : 256;
            c->f = realloc(c->f, c->cap * sizeof *c->f);
        }
        file *f = &c->f[c->n];
        f->buf = tu_slurp(full, &f->len);
        if (!f->buf) { TU_CHECK(0, "cannot read %s", full); continue; }
        f->name = strdup(sub);
        c->n++;
    }
    closedir(d);
}

/* ---------------- one verdict, as text ---------------- */
static void step(FILE *out, const npyg_ctx *ctx, const char *what, int rc)
{
    const npyg_error *e = npyg_last_error(ctx);
    fprintf(out, "%s: %s", what, npyg_error_name(rc));
    if (rc) fprintf(out, " %s:%llu %s", npyg_offset_space_name(e->offset_space), (unsigned long long)e->offset, e->message);
    fputc('\n', out);
}

static void npz_verdict(FILE *out, npyg_ctx *ctx, const file *f)
{
    npyg_zip *z = NULL;
    npyg_set_input_buffer(ctx, f->buf, f->len);
    int rc = npyg_zip_open(ctx, NULL, &z);
    step(out, ctx, "archive", rc);
    for (size_t i = 0; z && i < npyg_zip_count(z); i++) {
        rc = npyg_zip_validate_member(z, i);
        step(out, ctx, npyg_zip_member(z, i)->name, rc);
    }
    npyg_zip_close(z);
}

typedef struct input {
    const file *f;
    bool callback;
    tu_chunks ch;
} input;

/* The file's bytes as a buffer, or through a callback in chunks. */
static void set_input(npyg_ctx *ctx, input *in)
{
    if (in->callback) npyg_set_input_read(ctx, tu_chunked_read, &in->ch);
    else npyg_set_input_buffer(ctx, in->f->buf, in->f->len);
}

static void npy_verdict(FILE *out, npyg_ctx *ctx, input *in)
{
    const file *f = in->f;
    set_input(ctx, in);
    int rc = npyg_validate(ctx);
    step(out, ctx, "npy", rc);
    if (rc == 0) fprintf(out, "payload %llu\n", (unsigned long long)npyg_get_info(ctx)->payload_bytes);
    if (rc != NPYG_EOBJECT) return;
    npyg_set_input_buffer(ctx, f->buf, f->len);
    rc = npyg_pickle_scan_npy(ctx, NULL);
    step(out, ctx, "pickle", rc);
    const npyg_pickle_report *r = npyg_get_pickle_report(ctx);
    if (r) fprintf(out, "imports %u ops %llu\n", r->nimports, (unsigned long long)r->opcodes);
}

/* The verdict of ctx on f; the caller frees it. */
static char *verdict(npyg_ctx *ctx, const file *f, bool callback)
{
    char *text = NULL;
    size_t n = 0;
    FILE *out = open_memstream(&text, &n);
    input in = {f, callback, {f->buf, f->len, 0, 7, 4096}};
    switch (npyg_sniff_format(f->buf, f->len)) {
    case NPYG_FORMAT_NPZ:
        npz_verdict(out, ctx, f);
        break;
    case NPYG_FORMAT_RA: {
        set_input(ctx, &in);
        int rc = npyg_ra_validate(ctx);
        step(out, ctx, "ra", rc);
        if (rc == 0) fprintf(out, "data %llu\n", (unsigned long long)npyg_get_ra_info(ctx)->data_bytes);
        break;
    }
    default:
        npy_verdict(out, ctx, &in);
    }
    fclose(out);
    return text;
}

/* ---------------- fresh and dirty contexts ---------------- */
enum { F_NPY, F_NPZ, F_RA, F_COUNT };

static int format_of(const file *f)
{
    npyg_format k = npyg_sniff_format(f->buf, f->len);
    return k == NPYG_FORMAT_NPZ ? F_NPZ : k == NPYG_FORMAT_RA ? F_RA : F_NPY;
}

static npyg_ctx *new_ctx(const npyg_limits *lim, tu_alloc *cnt, npyg_alloc *al)
{
    tu_alloc_init(cnt, UINT64_MAX);
    *al = tu_allocator(cnt);
    npyg_options o = {.limits = lim, .alloc = al};
    npyg_ctx *ctx = npyg_ctx_new(&o);
    TU_CHECK(ctx != NULL, "context");
    return ctx;
}

/* For each format, the file after which a new context holds the most
   (through a callback where the format takes one). */
static void dirtiest(const corpus *c, const npyg_limits *lim, size_t pick[F_COUNT])
{
    uint64_t most[F_COUNT] = {0};
    for (int k = 0; k < F_COUNT; k++) pick[k] = SIZE_MAX;
    for (size_t i = 0; i < c->n; i++) {
        tu_alloc cnt;
        npyg_alloc al;
        npyg_ctx *ctx = new_ctx(lim, &cnt, &al);
        if (!ctx) return;
        uint64_t base = cnt.now;
        free(verdict(ctx, &c->f[i], true));
        int k = format_of(&c->f[i]);
        if (pick[k] == SIZE_MAX || cnt.now - base > most[k]) most[k] = cnt.now - base, pick[k] = i;
        npyg_ctx_free(ctx);
    }
    for (int k = 0; k < F_COUNT; k++)
        if (pick[k] != SIZE_MAX) printf("  dirtiest %s: %llu bytes kept\n", c->f[pick[k]].name, (unsigned long long)most[k]);
}

static void dirty(npyg_ctx *ctx, const corpus *c, const size_t pick[F_COUNT])
{
    for (int k = 0; k < F_COUNT; k++)
        if (pick[k] != SIZE_MAX) free(verdict(ctx, &c->f[pick[k]], true));
}

static void same(const char *fresh, const char *got, const char *name, const char *how)
{
    if (strcmp(fresh, got) == 0) { tu_passed++; return; }
    tu_current = name;
    TU_CHECK(0, "%s:\n  new context:   %.300s  dirty context: %.300s", how, fresh, got);
}

static void replay(const corpus *c, const npyg_limits *lim, const char *label)
{
    size_t pick[F_COUNT];
    printf("%s\n", label);
    dirtiest(c, lim, pick);
    for (int cb = 0; cb <= 1; cb++) {
        char **fresh = calloc(c->n, sizeof *fresh);
        for (size_t i = 0; i < c->n; i++) {
            tu_alloc cnt;
            npyg_alloc al;
            npyg_ctx *ctx = new_ctx(lim, &cnt, &al);
            fresh[i] = verdict(ctx, &c->f[i], cb);
            npyg_ctx_free(ctx);
            TU_CHECK(cnt.now == 0, "%s: %llu bytes leaked", c->f[i].name, (unsigned long long)cnt.now);
        }
        char how[160];
        /* Each file on its own after the dirtiest ones. */
        snprintf(how, sizeof how, "%s, %s, after the dirtiest files", label, cb ? "callback" : "buffer");
        for (size_t i = 0; i < c->n; i++) {
            tu_alloc cnt;
            npyg_alloc al;
            npyg_ctx *ctx = new_ctx(lim, &cnt, &al);
            dirty(ctx, c, pick);
            char *v = verdict(ctx, &c->f[i], cb);
            same(fresh[i], v, c->f[i].name, how);
            free(v);
            npyg_ctx_free(ctx);
        }
        /* The whole corpus on one context, forwards and backwards. */
        for (int rev = 0; rev <= 1; rev++) {
            snprintf(how, sizeof how, "%s, %s, whole corpus on one context %s", label, cb ? "callback" : "buffer",
                     rev ? "in reverse" : "in order");
            tu_alloc cnt;
            npyg_alloc al;
            npyg_ctx *ctx = new_ctx(lim, &cnt, &al);
            dirty(ctx, c, pick);
            for (size_t j = 0; j < c->n; j++) {
                size_t i = rev ? c->n - 1 - j : j;
                char *v = verdict(ctx, &c->f[i], cb);
                same(fresh[i], v, c->f[i].name, how);
                free(v);
            }
            npyg_ctx_free(ctx);
            TU_CHECK(cnt.now == 0, "%s: %llu bytes leaked", how, (unsigned long long)cnt.now);
        }
        for (size_t i = 0; i < c->n; i++) free(fresh[i]);
        free(fresh);
    }
}

/* The read buffer a callback parse leaves must not cost a later buffer
   parse its verdict: at the smallest cap at which the largest header of
   the corpus parses in a new context, it parses after a callback parse. */
static void read_buffer_kept(const corpus *c, const char *npy_name, const char *stream_name)
{
    tu_current = "read buffer kept";
    const file *big = NULL, *small = NULL;
    for (size_t i = 0; i < c->n; i++) {
        if (!strcmp(c->f[i].name, npy_name)) big = &c->f[i];
        if (!strcmp(c->f[i].name, stream_name)) small = &c->f[i];
    }
    if (!big || !small) { TU_CHECK(0, "%s or %s missing", npy_name, stream_name); return; }
    npyg_limits lim;
    npyg_limits_default(&lim);
    lim.max_header_bytes = 1u << 20;
    uint64_t lo = 4096, hi = UINT64_C(1) << 24;
    while (lo + 1 < hi) {
        lim.max_alloc_bytes = lo + (hi - lo) / 2;
        npyg_ctx *ctx = npyg_ctx_new(&(npyg_options){.limits = &lim});
        npyg_set_input_buffer(ctx, big->buf, big->len);
        int rc = ctx ? npyg_validate(ctx) : NPYG_ELIMIT_ALLOC;
        npyg_ctx_free(ctx);
        if (rc == 0) hi = lim.max_alloc_bytes;
        else lo = lim.max_alloc_bytes;
    }
    lim.max_alloc_bytes = hi;
    npyg_ctx *ctx = npyg_ctx_new(&(npyg_options){.limits = &lim});
    TU_CHECK(ctx != NULL, "context at %llu", (unsigned long long)hi);
    if (!ctx) return;
    tu_chunks ch = {small->buf, small->len, 0, 7, 4096};
    npyg_set_input_read(ctx, tu_chunked_read, &ch);
    int rc = npyg_validate(ctx);
    TU_CHECK(rc == 0, "%s through a callback at cap %llu: %s", stream_name, (unsigned long long)hi, npyg_error_name(rc));
    npyg_set_input_buffer(ctx, big->buf, big->len);
    rc = npyg_validate(ctx);
    TU_CHECK(rc == 0, "%s after a callback parse at cap %llu, where a new context parses it: %s (%s)", npy_name,
             (unsigned long long)hi, npyg_error_name(rc), npyg_last_error(ctx)->message);
    npyg_ctx_free(ctx);
}

int main(int argc, char **argv)
{
    if (tu_bad_args(argc, 2, "test_dirty_ctx CORPUS_DIR")) return 2;
    corpus c = {0};
    for (size_t g = 0; g < sizeof groups / sizeof groups[0]; g++) walk(&c, argv[1], groups[g]);
    qsort(c.f, c.n, sizeof *c.f, by_name);
    TU_AT_LEAST(c.n, 1000, "corpus files");

    npyg_limits lim;
    npyg_limits_default(&lim);
    replay(&c, &lim, "default limits");
    lim.max_alloc_bytes = 1u << 20;
    replay(&c, &lim, "max_alloc_bytes 1 MiB");
    lim.max_header_bytes = 1u << 20;
    replay(&c, &lim, "max_alloc_bytes 1 MiB, max_header_bytes 1 MiB");
    read_buffer_kept(&c, "valid/struct-big-header-na-1d-C-v2.npy", "valid/f8-le-2d-F-v1.npy");

    for (size_t i = 0; i < c.n; i++) {
        free(c.f[i].name);
        free(c.f[i].buf);
    }
    free(c.f);
    printf("%zu corpus files\n", c.n);
    return tu_finish();
}
