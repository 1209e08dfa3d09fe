/* SPDX-License-Identifier: BSD-3-Clause */
#include "testutil.h"
#include "../src/internal.h" /* npyg__hexval */

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int tu_passed, tu_failed;
const char *tu_current = "";

void tu_fail(const char *file, int line, const char *fmt, ...)
{
    tu_failed++;
    fprintf(stderr, "FAIL %s:%d %s: ", file, line, tu_current);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

int tu_finish(void)
{
    printf("%d passed, %d failed\n", tu_passed, tu_failed);
    return tu_failed ? 1 : 0;
}

bool tu_bad_args(int argc, int want, const char *usage)
{
    if (argc == want) return false;
    fprintf(stderr, "usage: %s\n", usage);
    return true;
}

static void *tu_malloc(void *user, size_t n)
{
    tu_alloc *t = user;
    long k = t->calls++;
    if (k == t->fail_at) return NULL;
    if (t->now + n > t->cap) {
        t->refused++;
        return NULL;
    }
    t->now += n;
    if (t->now > t->peak) t->peak = t->now;
    return malloc(n);
}

static void tu_free(void *user, void *p, size_t n)
{
    tu_alloc *t = user;
    t->now -= n;
    free(p);
}

void tu_alloc_init(tu_alloc *t, uint64_t cap)
{
    memset(t, 0, sizeof *t);
    t->cap = cap;
    t->fail_at = -1;
}

npyg_alloc tu_allocator(tu_alloc *t)
{
    npyg_alloc a = {tu_malloc, tu_free, t};
    return a;
}

npyg_ctx *tu_ctx_failing_at(tu_alloc *t, npyg_alloc *al, long n)
{
    tu_alloc_init(t, UINT64_MAX);
    t->fail_at = n;
    *al = tu_allocator(t);
    npyg_options o = {.alloc = al};
    return npyg_ctx_new(&o);
}

long long tu_chunked_read(void *user, void *buf, size_t n)
{
    tu_chunks *c = user;
    c->seed = c->seed * 1103515245u + 12345u;
    size_t k = 1 + (c->seed >> 16) % (c->max ? c->max : 7);
    if (k > n) k = n;
    if (k > c->len - c->pos) k = c->len - c->pos;
    memcpy(buf, c->p + c->pos, k);
    c->pos += k;
    return (long long)k;
}

size_t tu_unhex(const char *hex, size_t nhex, unsigned char *out)
{
    size_t n = 0;
    for (size_t k = 0; k + 1 < nhex; k += 2) {
        int hi = npyg__hexval(hex[k]), lo = npyg__hexval(hex[k + 1]);
        if (hi < 0 || lo < 0) break;
        out[n++] = (unsigned char)(hi << 4 | lo);
    }
    return n;
}

unsigned char *tu_slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *b = malloc(n > 0 ? (size_t)n : 1);
    if (b && n > 0 && fread(b, 1, (size_t)n, f) != (size_t)n) {
        free(b);
        b = NULL;
    }
    fclose(f);
    *len = (size_t)(n > 0 ? n : 0);
    return b;
}

unsigned char *tu_read_case(const char *dir, const char *name, char *path, size_t *len)
{
    tu_current = name;
    snprintf(path, 4096, "%s/%s", dir, name);
    unsigned char *buf = tu_slurp(path, len);
    TU_CHECK(buf != NULL, "cannot read %s", path);
    return buf;
}

unsigned char *tu_read_as(const char *label, const char *dir, const char *name, char *path, size_t *len)
{
    unsigned char *buf = tu_read_case(dir, name, path, len);
    tu_current = label;
    return buf;
}

json_t *tu_load_manifest(const char *dir)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/manifest.json", dir);
    json_error_t jerr;
    json_t *m = json_load_file(path, JSON_ALLOW_NUL, &jerr);
    if (!m) fprintf(stderr, "%s:%d: %s\n", path, jerr.line, jerr.text);
    return m;
}

void tu_torture(const char *label, int (*run)(npyg_ctx *ctx, tu_alloc *cnt, void *user), void *user)
{
    tu_current = label;
    for (long n = 0;; n++) {
        tu_alloc cnt;
        npyg_alloc al;
        npyg_ctx *ctx = tu_ctx_failing_at(&cnt, &al, n);
        int first = 0;
        if (ctx) {
            first = run(ctx, &cnt, user);
            if (first) TU_CHECK(first == NPYG_ENOMEM, "allocation %ld refused: got %s (%s)", n, npyg_error_name(first),
                                npyg_last_error(ctx)->message);
            npyg_ctx_free(ctx);
        }
        TU_CHECK(cnt.now == 0, "allocation %ld refused: %llu bytes leaked", n, (unsigned long long)cnt.now);
        if (ctx && !first) {
            printf("torture %s: every one of %ld allocations failed in turn\n", label, n);
            break;
        }
        if (n > 10000) { TU_CHECK(0, "no end"); break; }
    }
}

int tu_zip_walk(npyg_ctx *ctx, const unsigned char *buf, size_t len, const npyg_zip_limits *zl,
                int (*member)(npyg_zip *z, size_t i, void *user), void *user, char *failed, size_t failed_size)
{
    npyg_zip *z = NULL;
    npyg_set_input_buffer(ctx, buf, len);
    int rc = npyg_zip_open(ctx, zl, &z);
    if (failed) failed[0] = '\0';
    for (size_t i = 0; !rc && i < npyg_zip_count(z); i++) {
        rc = member ? member(z, i, user) : npyg_zip_validate_member(z, i);
        if (rc && failed) snprintf(failed, failed_size, "%s", npyg_zip_member(z, i)->name);
    }
    npyg_zip_close(z);
    return rc;
}

int tu_probe(npyg_ctx *ctx, npyg_probe_info *info)
{
    int rc = npyg_probe_input(ctx);
    const npyg_probe_info *pi = npyg_get_probe_info(ctx);
    *info = pi ? *pi : (npyg_probe_info){0};
    return rc;
}

int tu_code_of(const char *name)
{
    for (int c = 0; c < 256; c++)
        if (strcmp(npyg_error_name(c), name) == 0) return c;
    return -1;
}

/* ---------------- divergences.tsv ---------------- */
static bool is_corpus_row(const char *name)
{
    size_t n = strlen(name);
    return n > 4 && strcmp(name + n - 4, ".npy") == 0;
}

int tu_divs_load(tu_divs *d, const char *path)
{
    memset(d, 0, sizeof *d);
    FILE *f = fopen(path, "r");
    if (!f) {
        perror(path);
        return -1;
    }
    char *line = NULL;
    size_t cap = 0;
    ssize_t got;
    size_t lineno = 0, room = 0;
    int rc = 0;
    while (rc == 0 && (got = getline(&line, &cap, f)) > 0) {
        lineno++;
        if (line[0] == '#' || line[0] == '\n') continue;
        line[strcspn(line, "\n")] = '\0';
        char *code = strchr(line, '\t');
        char *section = code ? strchr(code + 1, '\t') : NULL;
        if (!code || !section || section[1] == '\0' || strchr(section + 1, '\t')) {
            fprintf(stderr, "%s:%zu: want three tab-separated columns\n", path, lineno);
            rc = -1;
            break;
        }
        *code++ = '\0';
        *section = '\0';
        int c = tu_code_of(code);
        if (c < 0) {
            fprintf(stderr, "%s:%zu: unknown code %s\n", path, lineno, code);
            rc = -1;
            break;
        }
        for (size_t k = 0; k < d->n; k++)
            if (strcmp(d->rows[k].name, line) == 0) {
                fprintf(stderr, "%s:%zu: %s listed twice\n", path, lineno, line);
                rc = -1;
            }
        if (rc) break;
        if (d->n == room) {
            room = room ? 2 * room : 64;
            tu_div *r = realloc(d->rows, room * sizeof *r);
            if (!r) { rc = -1; break; }
            d->rows = r;
        }
        d->rows[d->n].name = strdup(line);
        d->rows[d->n].code = c;
        d->rows[d->n].used = false;
        d->n++;
    }
    free(line);
    fclose(f);
    return rc;
}

const tu_div *tu_divs_lookup(const tu_divs *d, const char *name)
{
    for (size_t k = 0; k < d->n; k++)
        if (strcmp(d->rows[k].name, name) == 0) return &d->rows[k];
    return NULL;
}

const tu_div *tu_divs_find(tu_divs *d, const char *name)
{
    tu_div *row = (tu_div *)tu_divs_lookup(d, name);
    if (row) row->used = true;
    return row;
}

void tu_divs_check_used(const tu_divs *d, bool corpus)
{
    const char *was = tu_current;
    tu_current = "divergences.tsv";
    size_t mine = 0;
    for (size_t k = 0; k < d->n; k++) {
        if (is_corpus_row(d->rows[k].name) != corpus) continue;
        mine++;
        TU_CHECK(d->rows[k].used, "row '%s' matches no %s", d->rows[k].name,
                 corpus ? "corpus file" : "case in numpy_cases.tsv");
    }
    printf("divergences.tsv: %zu rows for this test\n", mine);
    tu_current = was;
}

void tu_divs_free(tu_divs *d)
{
    for (size_t k = 0; k < d->n; k++) free(d->rows[k].name);
    free(d->rows);
    memset(d, 0, sizeof *d);
}

/* ---------------- manifest fields ---------------- */
uint64_t tu_json_u64(const json_t *v)
{
    if (json_is_integer(v)) return (uint64_t)json_integer_value(v);
    if (json_is_string(v)) return strtoull(json_string_value(v), NULL, 10);
    return UINT64_MAX;
}

void tu_check_fields(const npyg_info *in, const json_t *e)
{
    const json_t *ver = json_object_get(e, "version");
    TU_CHECK(in->version_major == json_integer_value(json_array_get(ver, 0)) &&
                 in->version_minor == json_integer_value(json_array_get(ver, 1)),
             "version %d.%d", in->version_major, in->version_minor);
    TU_CHECK(in->header_len == tu_json_u64(json_object_get(e, "header_len")), "header_len %u", in->header_len);
    TU_CHECK(in->data_offset == tu_json_u64(json_object_get(e, "data_offset")), "data_offset %llu",
             (unsigned long long)in->data_offset);
    const json_t *shape = json_object_get(e, "shape");
    bool same = json_array_size(shape) == in->ndim;
    for (uint32_t k = 0; same && k < in->ndim; k++) same = tu_json_u64(json_array_get(shape, k)) == in->shape[k];
    TU_CHECK(same, "shape differs (ndim %u)", in->ndim);
    TU_CHECK(in->fortran_order == json_is_true(json_object_get(e, "fortran_order")), "fortran_order");
    TU_CHECK(in->dtype->itemsize == tu_json_u64(json_object_get(e, "itemsize")), "itemsize %llu",
             (unsigned long long)in->dtype->itemsize);
    /* numpy's itemsize 0 (S0, U0, V0, empty structs) carries the warning, nothing else does. */
    TU_CHECK(((in->warnings & NPYG_W_ZERO_ITEMSIZE) != 0) == (tu_json_u64(json_object_get(e, "itemsize")) == 0),
             "zero-itemsize warning %s for numpy itemsize %llu", in->warnings & NPYG_W_ZERO_ITEMSIZE ? "set" : "unset",
             (unsigned long long)tu_json_u64(json_object_get(e, "itemsize")));
    TU_CHECK(in->count == tu_json_u64(json_object_get(e, "count")), "count %llu", (unsigned long long)in->count);
    TU_CHECK(in->payload_bytes == tu_json_u64(json_object_get(e, "payload_bytes")), "payload_bytes %llu",
             (unsigned long long)in->payload_bytes);
    TU_CHECK(in->trailing_bytes == tu_json_u64(json_object_get(e, "trailing_bytes")), "trailing_bytes %llu",
             (unsigned long long)in->trailing_bytes);
    const char *want = json_string_value(json_object_get(e, "descr_repr"));
    TU_CHECK(want != NULL, "the manifest entry has no descr_repr");
    /* A descr numpy wrote in native order ('=f8') comes back resolved to
       this machine's order, so only those are not compared as text. */
    bool platform = json_is_true(json_object_get(e, "platform_dependent")) && want && strchr("=|", want[1]) == NULL;
    if (want && !platform && !(in->warnings & NPYG_W_NATIVE_ORDER)) {
        char descr[8192];
        npyg_format_descr(in->dtype, descr, sizeof descr);
        TU_CHECK(strcmp(descr, want) == 0, "descr %s, numpy wrote %s", descr, want);
    }
}
