/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bench_header: nanoseconds per npyg_parse_header call over headers held in
 * memory, one context reused, as a program using the library in a loop
 * would. Each header is the file's bytes up to its data offset.
 *
 *   bench_header [-r REPEATS] [-t SECONDS] [-H MAX_HEADER_BYTES] LIST
 *
 * LIST has one "group<TAB>path" line per header. For each group, and for
 * all headers together ("all"), the loop over the group is timed until a
 * repeat lasts at least SECONDS (default 0.2); the median of REPEATS
 * (default 5) repeats is printed as one JSON object:
 *   {"all": {"n": 438, "ns": 812.5, "min_ns": 790.1}, "plain": {...}, ...}
 * Exit status 1 if any header does not parse.
 */
#include "npyguard.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct header {
    char group[32];
    unsigned char *buf;
    size_t len;
} header;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static unsigned char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 1 << 16, n = 0;
    unsigned char *p = malloc(cap);
    while (p) {
        n += fread(p + n, 1, cap - n, f);
        if (n < cap) break;
        unsigned char *q = realloc(p, cap * 2);
        if (!q) { free(p); p = NULL; break; }
        p = q;
        cap *= 2;
    }
    fclose(f);
    *len = n;
    return p;
}

/* Parses every header of the selection (group NULL: all) iters times. */
static int run(npyg_ctx *ctx, const header *h, size_t n, const char *group, long iters, size_t *count)
{
    int bad = 0;
    size_t c = 0;
    for (long it = 0; it < iters; it++)
        for (size_t k = 0; k < n; k++) {
            if (group && strcmp(h[k].group, group) != 0) continue;
            bad |= npyg_parse_header(ctx, h[k].buf, h[k].len);
            c++;
        }
    *count = c;
    return bad;
}

int main(int argc, char **argv)
{
    int repeats = 5;
    double min_time = 0.2;
    npyg_limits lim;
    npyg_limits_default(&lim);
    const char *list = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-r") && i + 1 < argc) repeats = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-t") && i + 1 < argc) min_time = atof(argv[++i]);
        else if (!strcmp(argv[i], "-H") && i + 1 < argc) lim.max_header_bytes = strtoull(argv[++i], NULL, 10);
        else if (!list) list = argv[i];
        else list = NULL, i = argc;
    }
    if (!list || repeats < 1 || repeats > 101) {
        fputs("usage: bench_header [-r REPEATS] [-t SECONDS] [-H MAX_HEADER_BYTES] LIST\n", stderr);
        return 2;
    }
    npyg_options opt = {NPYG_PROFILE_NUMPY, &lim, NULL, 0};
    npyg_ctx *ctx = npyg_ctx_new(&opt);
    if (!ctx) { fputs("bench_header: cannot make a context\n", stderr); return 2; }

    FILE *lf = fopen(list, "r");
    if (!lf) { perror(list); return 2; }
    header *h = NULL;
    size_t n = 0, cap = 0;
    char line[4096];
    char groups[16][32];
    size_t ngroups = 0;
    while (fgets(line, sizeof line, lf)) {
        line[strcspn(line, "\r\n")] = '\0';
        char *tab = strchr(line, '\t');
        if (!tab || (size_t)(tab - line) >= sizeof h->group) continue;
        *tab = '\0';
        if (n == cap) {
            cap = cap ? cap * 2 : 256;
            h = realloc(h, cap * sizeof *h);
            if (!h) return 2;
        }
        header *e = &h[n];
        memcpy(e->group, line, (size_t)(tab - line) + 1); /* length checked above */
        e->buf = slurp(tab + 1, &e->len);
        if (!e->buf) { perror(tab + 1); return 2; }
        if (npyg_parse_header(ctx, e->buf, e->len) != 0) {
            fprintf(stderr, "bench_header: %s: %s\n", tab + 1, npyg_last_error(ctx)->message);
            return 1;
        }
        e->len = (size_t)npyg_get_info(ctx)->data_offset; /* header only */
        size_t g = 0;
        while (g < ngroups && strcmp(groups[g], e->group) != 0) g++;
        if (g == ngroups && ngroups < 16) memcpy(groups[ngroups++], e->group, sizeof groups[0]);
        n++;
    }
    fclose(lf);
    if (n == 0) { fputs("bench_header: no headers\n", stderr); return 2; }

    double *ns = malloc((size_t)repeats * sizeof *ns);
    if (!ns) return 2;
    printf("{");
    for (size_t g = 0; g <= ngroups; g++) {
        const char *group = g == 0 ? NULL : groups[g - 1];
        size_t count = 0;
        long iters = 1;
        /* Calibrate: double the iterations until one repeat is long enough. */
        for (;;) {
            double t0 = now();
            if (run(ctx, h, n, group, iters, &count)) return 1;
            if (now() - t0 >= min_time || iters > (1L << 30)) break;
            iters *= 2;
        }
        for (int r = 0; r < repeats; r++) {
            double t0 = now();
            if (run(ctx, h, n, group, iters, &count)) return 1;
            ns[r] = (now() - t0) * 1e9 / (double)count;
        }
        qsort(ns, (size_t)repeats, sizeof *ns, cmp_double);
        printf("%s\"%s\": {\"n\": %zu, \"ns\": %.2f, \"min_ns\": %.2f}", g ? ", " : "", group ? group : "all",
               count / (size_t)iters, ns[repeats / 2], ns[0]);
    }
    printf("}\n");
    for (size_t k = 0; k < n; k++) free(h[k].buf);
    free(h);
    free(ns);
    npyg_ctx_free(ctx);
    return 0;
}
