/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The HDF5 load's parent side (npyg_hdf5_load) against the valid corpus
 * and against a child that lies or dies:
 *  - every valid file loads; every value's buffer is asked for at exactly
 *    the validated size and filled to exactly that size (guard bytes after
 *    it stay untouched); the sink's end is called once, with 0;
 *  - the context's allocator, capped at the scan's bound plus one .npy
 *    header buffer and the parser's own worst case, is never refused: the
 *    values never go through it, whatever their size;
 *  - a sink whose allocator refuses past a budget stops the load: the
 *    load returns NPYG_EIO and end() says to drop everything;
 *  - a child crashing or exiting in the middle of a value (the escape-test
 *    helper's load-* inputs) gives NPYG_EHDF5_CRASH naming the object it
 *    was sending, a value whose header or lengths lie NPYG_EHDF5_PROTOCOL
 *    naming it, and a load record in a plain scan NPYG_EHDF5_PROTOCOL;
 *  - a sink slower than the child's wall-clock limit: NPYG_EHDF5_TIMEOUT.
 * Usage: test_hdf5_load CORPUS_HDF5_DIR [ESCAPE_HELPER]
 */
#include "npyguard.h"
#include "testutil.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define GUARD 64

typedef struct {
    uint64_t budget;     /* the sink refuses past this many payload bytes */
    uint64_t given;      /* bytes handed out */
    unsigned objects, values, ends;
    int end_rc;
    char last[512];      /* the last object's path */
    unsigned char *bufs[4096];
    uint64_t sizes[4096];
    unsigned nbufs;
    unsigned sleep_ms;   /* before the first value */
} sink_state;

static int on_object(void *user, const npyg_hdf5_item *it)
{
    sink_state *s = user;
    s->objects++;
    snprintf(s->last, sizeof s->last, "%s", it->path);
    TU_CHECK(it->path[0] == '/', "%s: a path that is not absolute", it->path);
    return 0;
}

static int on_value(void *user, unsigned index, const npyg_info *in, void **buf)
{
    sink_state *s = user;
    (void)index;
    if (s->sleep_ms && s->values == 0) {
        struct timespec ts = {s->sleep_ms / 1000, (long)(s->sleep_ms % 1000) * 1000000L};
        nanosleep(&ts, NULL);
    }
    s->values++;
    TU_CHECK(in->payload_bytes == in->count * in->dtype->itemsize, "%s: payload_bytes is not count * itemsize",
             s->last);
    if (in->payload_bytes > s->budget - s->given || s->nbufs == sizeof s->bufs / sizeof s->bufs[0]) return 1;
    unsigned char *b = malloc(in->payload_bytes + GUARD);
    if (!b) return 1;
    memset(b, 0xa5, in->payload_bytes + GUARD);
    s->bufs[s->nbufs] = b;
    s->sizes[s->nbufs++] = in->payload_bytes;
    s->given += in->payload_bytes;
    *buf = b;
    return 0;
}

static void on_end(void *user, int rc)
{
    sink_state *s = user;
    s->ends++;
    s->end_rc = rc;
}

static void release(sink_state *s)
{
    for (unsigned i = 0; i < s->nbufs; i++) {
        bool intact = true;
        for (unsigned k = 0; k < GUARD; k++) intact = intact && s->bufs[i][s->sizes[i] + k] == 0xa5;
        TU_CHECK(intact, "value %u: bytes written past its validated size", i);
        free(s->bufs[i]);
    }
    s->nbufs = 0;
}

/* One load of file; helper NULL: the default. */
static int load(const char *file, const char *helper, const npyg_hdf5_limits *hl, sink_state *s, tu_alloc *ta,
                char *msg, size_t msize)
{
    npyg_limits lim;
    npyg_limits_default(&lim);
    npyg_alloc al = tu_allocator(ta);
    npyg_options o = {NPYG_PROFILE_NUMPY, &lim, &al, 0};
    npyg_ctx *ctx = npyg_ctx_new(&o);
    if (!ctx) return -1;
    if (helper) npyg_hdf5_set_helper(ctx, helper);
    int fd = open(file, O_RDONLY);
    npyg_hdf5_sink sink = {on_object, on_value, on_end, s};
    npyg_set_input_fd(ctx, fd);
    int rc = fd < 0 ? -1 : npyg_hdf5_load(ctx, hl, &sink);
    snprintf(msg, msize, "%s", npyg_last_error(ctx)->message);
    if (fd >= 0) close(fd);
    npyg_ctx_free(ctx);
    TU_CHECK(ta->now == 0, "%s: %llu bytes leaked", file, (unsigned long long)ta->now);
    return rc;
}

static int list_dir(const char *dir, char names[][4096], int max)
{
    DIR *d = opendir(dir);
    int n = 0;
    struct dirent *e;
    while (d && (e = readdir(d)) && n < max)
        if (e->d_name[0] != '.') snprintf(names[n++], 4096, "%.3800s/%s", dir, e->d_name);
    if (d) closedir(d);
    return n;
}

static char files[256][4096];

static void check_valid(const char *corpus)
{
    static const char *const dirs[] = {"valid/h5", "valid/mat", "matlab/valid"};
    int n = 0;
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
        char d[4096];
        snprintf(d, sizeof d, "%s/%s", corpus, dirs[i]);
        n += list_dir(d, files + n, 256 - n);
    }
    npyg_limits lim;
    npyg_limits_default(&lim);
    npyg_hdf5_limits hl;
    npyg_hdf5_limits_default(&hl);
    uint64_t cap = npyg_hdf5_worst_case_alloc(&lim, &hl) + 65536 + 12 + npyg_worst_case_alloc(&lim);
    int loaded = 0;
    uint64_t most = 0;
    const char *largest = NULL;
    for (int i = 0; i < n; i++) {
        tu_current = files[i];
        sink_state s;
        memset(&s, 0, sizeof s);
        s.budget = UINT64_MAX;
        tu_alloc ta;
        tu_alloc_init(&ta, cap);
        char msg[256];
        int rc = load(files[i], NULL, NULL, &s, &ta, msg, sizeof msg);
        TU_CHECK(rc == 0, "%s: load failed %d: %s", files[i], rc, msg);
        TU_CHECK(ta.refused == 0, "%s: the context's allocator was asked past %llu bytes", files[i],
                 (unsigned long long)cap);
        TU_CHECK(s.ends == 1 && s.end_rc == 0, "%s: end called %u times, rc %d", files[i], s.ends, s.end_rc);
        TU_CHECK(s.objects > 0 && s.values > 0, "%s: nothing loaded", files[i]);
        loaded += rc == 0;
        if (s.given > most) most = s.given, largest = files[i];
        release(&s);
    }
    TU_AT_LEAST(loaded, n, "valid files loaded");

    /* a sink allocator with room for all but the last byte stops the load */
    if (!largest) return;
    tu_current = largest;
    for (int exact = 1; exact >= 0; exact--) {
        sink_state s;
        memset(&s, 0, sizeof s);
        s.budget = exact ? most : most - 1;
        tu_alloc ta;
        tu_alloc_init(&ta, cap);
        char msg[256];
        int rc = load(largest, NULL, NULL, &s, &ta, msg, sizeof msg);
        if (exact) TU_CHECK(rc == 0 && s.given == most, "a budget of exactly the validated sizes: rc %d", rc);
        else TU_CHECK(rc == NPYG_EIO && s.ends == 1 && s.end_rc == NPYG_EIO,
                      "a refusing sink: rc %d, end %u times with %d (%s)", rc, s.ends, s.end_rc, msg);
        release(&s);
    }
}

/* "NPYG-ESCAPE name" in the user block of a real HDF5 file. */
static void escape_file(const char *name, const char *h5, char *out)
{
    size_t len;
    unsigned char *img = tu_slurp(h5, &len);
    snprintf(out, 4096, "/tmp/npyg-load-%ld-%s.h5", (long)getpid(), name);
    FILE *f = fopen(out, "wb");
    char head[512] = {0};
    snprintf(head, sizeof head, "NPYG-ESCAPE %s\n", name);
    if (f && img) {
        fwrite(head, 1, sizeof head, f);
        fwrite(img, 1, len, f);
    }
    if (f) fclose(f);
    free(img);
}

/* The escape-test child named name, over h5, loaded into s (path: the
   file it made). */
static int load_escape(const char *name, const char *h5, const char *helper, sink_state *s, char *path, char *msg,
                       size_t msize)
{
    escape_file(name, h5, path);
    tu_current = name;
    memset(s, 0, sizeof *s);
    s->budget = UINT64_MAX;
    tu_alloc ta;
    tu_alloc_init(&ta, UINT64_MAX);
    return load(path, helper, NULL, s, &ta, msg, msize);
}

static void check_lies(const char *corpus, const char *helper)
{
    char h5[4096];
    snprintf(h5, sizeof h5, "%s/valid/h5/float64.h5", corpus);
    if (access(h5, R_OK) != 0) {
        char d[4096];
        snprintf(d, sizeof d, "%s/valid/h5", corpus);
        TU_CHECK(list_dir(d, files, 1) == 1, "no plain HDF5 file in %s", d);
        snprintf(h5, sizeof h5, "%s", files[0]);
    }
    static const struct {
        const char *name;
        int code;
        const char *says;
    } cases[] = {
        {"load-crashes", NPYG_EHDF5_CRASH, "SIGILL"},
        {"load-exits", NPYG_EHDF5_CRASH, "before the end"},
        {"load-wrong-count", NPYG_EHDF5_PROTOCOL, "sum to 5"},
        {"load-object", NPYG_EHDF5_PROTOCOL, "refuses its .npy header"},
        {"load-fortran", NPYG_EHDF5_PROTOCOL, "Fortran"},
        {"load-at-past-end", NPYG_EHDF5_PROTOCOL, "of a file of"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char path[4096], msg[256];
        sink_state s;
        int rc = load_escape(cases[i].name, h5, helper, &s, path, msg, sizeof msg);
        TU_CHECK(rc == cases[i].code, "%s: code %d, not %d: %s", cases[i].name, rc, cases[i].code, msg);
        TU_CHECK(strstr(msg, "/x") && strstr(msg, cases[i].says), "%s: the message does not name /x and say '%s': %s",
                 cases[i].name, cases[i].says, msg);
        TU_CHECK(s.ends == 1 && s.end_rc == rc, "%s: end called %u times with %d", cases[i].name, s.ends, s.end_rc);
        TU_CHECK(s.objects == 2, "%s: %u records before the lie, not 2", cases[i].name, s.objects);
        release(&s);
        unlink(path);
    }

    /* A value "in the file" at an offset the child chose: the parent reads
       those bytes of the same file, here its first 16, and nothing else. */
    {
        char path[4096], msg[256];
        sink_state s;
        int rc = load_escape("load-at-start", h5, helper, &s, path, msg, sizeof msg);
        unsigned char head[16] = {0};
        FILE *f = fopen(path, "rb");
        TU_CHECK(f && fread(head, 1, sizeof head, f) == sizeof head, "cannot read %s back", path);
        if (f) fclose(f);
        TU_CHECK(rc == 0, "load-at-start: %d: %s", rc, msg);
        TU_CHECK(s.nbufs == 1 && s.sizes[0] == 16 && !memcmp(s.bufs[0], head, 16),
                 "load-at-start: %u values, the first of %llu bytes, not the file's first 16", s.nbufs,
                 (unsigned long long)(s.nbufs ? s.sizes[0] : 0));
        release(&s);
        unlink(path);
    }

    /* a load record where a scan expects none */
    char path[4096];
    escape_file("load-in-scan", h5, path);
    tu_current = "load-in-scan";
    npyg_ctx *ctx = npyg_ctx_new(NULL);
    npyg_hdf5_set_helper(ctx, helper);
    int fd = open(path, O_RDONLY);
    npyg_set_input_fd(ctx, fd);
    int rc = npyg_hdf5_scan(ctx, NULL, NULL, NULL);
    TU_CHECK(rc == NPYG_EHDF5_PROTOCOL, "a load record in a scan: %d (%s)", rc, npyg_last_error(ctx)->message);
    close(fd);
    npyg_ctx_free(ctx);
    unlink(path);
}

static void check_timeout(void)
{
    tu_current = "slow sink";
    /* the largest valid file found by check_valid is any of them: one
       value is enough for the child to outlive its second */
    sink_state s;
    memset(&s, 0, sizeof s);
    s.budget = UINT64_MAX;
    s.sleep_ms = 2500;
    npyg_hdf5_limits hl;
    npyg_hdf5_limits_default(&hl);
    hl.child_wall_seconds = 1;
    tu_alloc ta;
    tu_alloc_init(&ta, UINT64_MAX);
    char msg[256];
    int rc = load(files[0], NULL, &hl, &s, &ta, msg, sizeof msg);
    TU_CHECK(rc == NPYG_EHDF5_TIMEOUT && s.ends == 1 && s.end_rc == rc, "a sink past the deadline: %d (%s)", rc,
             msg);
    release(&s);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_hdf5_load CORPUS_HDF5_DIR [ESCAPE_HELPER]\n");
        return 2;
    }
    if (!npyg_hdf5_available()) {
        printf("SKIP: no libhdf5 helper in this build\n");
        return 77;
    }
    check_valid(argv[1]);
    check_timeout();
    if (argc > 2) check_lies(argv[1], argv[2]);
    return tu_finish();
}
