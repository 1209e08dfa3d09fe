/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Rules of the C API, each test named for the rule it checks. Expected
 * values come from the .npy format specification (NEP 1 and numpy's
 * format.py) or from numpy-written bytes, never from npyguard's output.
 */
#include "npyguard.h"
#include "testutil.h"

#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define TEST(name) static void name(void)
#define RUN(name) (tu_current = #name, name())

/* A v1 file as numpy 1.24 writes np.arange(3.0): header padded with
   spaces to a 64-byte data offset, then three little-endian doubles. */
static size_t make_npy(unsigned char *out, int major, const char *dict, const void *payload, size_t plen)
{
    size_t pre = major == 1 ? 10 : 12;
    size_t dl = strlen(dict);
    size_t total = pre + dl + 1;
    size_t pad = (64 - total % 64) % 64;
    size_t hlen = dl + pad + 1;
    memcpy(out, "\x93NUMPY", 6);
    out[6] = (unsigned char)major;
    out[7] = 0;
    out[8] = (unsigned char)(hlen & 0xFF);
    out[9] = (unsigned char)(hlen >> 8);
    if (major != 1) { out[10] = 0; out[11] = 0; }
    memcpy(out + pre, dict, dl);
    memset(out + pre + dl, ' ', pad);
    out[pre + hlen - 1] = '\n';
    if (plen) memcpy(out + pre + hlen, payload, plen);
    return pre + hlen + plen;
}

static const double three[3] = {0.0, 1.0, 2.0};
#define F8_3 "{'descr': '<f8', 'fortran_order': False, 'shape': (3,), }"

TEST(valid_file_reports_what_the_spec_says)
{
    unsigned char f[256];
    size_t n = make_npy(f, 1, F8_3, three, sizeof three);
    npyg_ctx *ctx = npyg_ctx_new(NULL);
    npyg_set_input_buffer(ctx, f, n);
    TU_CHECK(npyg_validate(ctx) == 0, "%s", npyg_last_error(ctx)->message);
    const npyg_info *in = npyg_get_info(ctx);
    TU_CHECK(in && in->version_major == 1 && in->version_minor == 0, "version");
    /* numpy 1.24 writes this very header with HEADER_LEN 118, data at 128. */
    TU_CHECK(in && in->data_offset == 128 && in->header_len == 118, "offset %llu", in ? (unsigned long long)in->data_offset : 0);
    TU_CHECK(in && in->ndim == 1 && in->shape[0] == 3 && in->count == 3 && in->payload_bytes == 24, "shape");
    TU_CHECK(in && in->dtype->kind == NPYG_KIND_FLOAT && in->dtype->byteorder == '<' && in->dtype->itemsize == 8, "dtype");
    TU_CHECK(in && in->warnings == 0, "warnings %x", in ? in->warnings : 0);
    npyg_ctx_free(ctx);
}

TEST(context_refuses_unknown_flags_and_bad_limits)
{
    npyg_options o = {.flags = 1};
    TU_CHECK(npyg_ctx_new(&o) == NULL, "unknown flag accepted");
    npyg_limits l;
    npyg_limits_default(&l);
    l.max_header_bytes = 0;
    o.flags = 0;
    o.limits = &l;
    TU_CHECK(npyg_ctx_new(&o) == NULL, "zero header limit accepted");
    TU_CHECK(npyg_worst_case_alloc(&l) == 0, "bound of invalid limits");
    npyg_limits_default(&l);
    l.max_depth = NPYG_MAX_DEPTH_CAP + 1;
    TU_CHECK(npyg_ctx_new(&o) == NULL, "depth over the cap accepted");
    o.profile = (npyg_profile)7;
    o.limits = NULL;
    TU_CHECK(npyg_ctx_new(&o) == NULL, "unknown profile accepted");
    npyg_ctx_free(NULL); /* NULL-safe */
}

TEST(no_result_before_a_successful_parse)
{
    npyg_ctx *ctx = npyg_ctx_new(NULL);
    TU_CHECK(npyg_get_info(ctx) == NULL, "info before any parse");
    npyg_set_input_buffer(ctx, "xx", 2);
    TU_CHECK(npyg_validate(ctx) == NPYG_EMAGIC, "bad magic");
    TU_CHECK(npyg_get_info(ctx) == NULL, "info after a failed parse");
    npyg_set_input_buffer(NULL, "x", 1);
    TU_CHECK(npyg_validate(NULL) == NPYG_EINVAL, "NULL ctx");
    npyg_set_input_buffer(ctx, NULL, 5);
    TU_CHECK(npyg_validate(ctx) == NPYG_EINVAL, "NULL buffer");
    npyg_ctx_free(ctx);
}

/* The codes npyguard.h declares in enum npyg_status, read from the header
   text itself: name and number as the source spells them. */
typedef struct declared_code {
    char name[64];
    int value;
} declared_code;

static size_t read_status_enum(const char *header, declared_code *out, size_t max)
{
    size_t len;
    char *text = (char *)tu_slurp(header, &len);
    if (!text) return 0;
    char *end = text + len;
    char *p = strstr(text, "typedef enum npyg_status {");
    char *stop = p ? strstr(p, "} npyg_status;") : NULL;
    size_t n = 0;
    while (p && stop && p < stop && p < end && n < max) {
        p = strstr(p, "NPYG_");
        if (!p || p >= stop) break;
        size_t k = strspn(p, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");
        char *q = p + k;
        while (*q == ' ') q++;
        if (*q == '=' && k < sizeof out[n].name) {
            memcpy(out[n].name, p, k);
            out[n].name[k] = '\0';
            out[n].value = atoi(q + 1);
            n++;
        }
        p += k;
    }
    free(text);
    return n;
}

static const char *header_path;

TEST(error_table_is_complete_and_stable)
{
    /* The numbers are part of the API: these never change. */
    TU_CHECK(NPYG_EMAGIC == 10 && NPYG_ESYNTAX == 20 && NPYG_ESHAPE == 30 && NPYG_EOBJECT == 34 &&
              NPYG_ETRUNC_PAYLOAD == 40 && NPYG_ELIMIT_HEADER == 50 && NPYG_ELIMIT_PAYLOAD == 55,
          "renumbered");
    declared_code decl[512];
    size_t ndecl = read_status_enum(header_path, decl, sizeof decl / sizeof decl[0]);
    TU_CHECK(ndecl > 0, "no codes read from %s", header_path);
    /* Every declared code has its own name at its number, below the end marker. */
    for (size_t k = 0; k < ndecl; k++) {
        TU_CHECK(decl[k].value < NPYG_STATUS_END_, "%s = %d is not below NPYG_STATUS_END_ (%d)", decl[k].name,
                 decl[k].value, (int)NPYG_STATUS_END_);
        TU_CHECK(strcmp(npyg_error_name(decl[k].value), decl[k].name) == 0, "npyg_error_name(%d) is %s, header says %s",
                 decl[k].value, npyg_error_name(decl[k].value), decl[k].name);
    }
    /* Every number the library names, up to the end marker, is declared. */
    size_t named = 0;
    for (int c = 0; c < NPYG_STATUS_END_; c++) {
        if (strcmp(npyg_error_name(c), "?") == 0) continue;
        named++;
        bool found = false;
        for (size_t k = 0; k < ndecl && !found; k++) found = decl[k].value == c;
        TU_CHECK(found, "the library names code %d (%s), npyguard.h does not declare it", c, npyg_error_name(c));
    }
    TU_AT_LEAST(named, ndecl, "codes named by the library");
    TU_CHECK(strcmp(npyg_error_name(9999), "?") == 0, "unknown code");
    TU_CHECK(strcmp(npyg_version_string(), NPYG_VERSION_STRING) == 0, "version string");
}

/* The version number and the ABI rule of npyguard.h: the number is
   MAJOR * 1000000 + MINOR * 1000 + PATCH of the version string; a
   program is served by a library of its ABI generation (the minor
   through 0.x, the major from 1.0) that is at least as new. */
TEST(version_number_and_abi_rule)
{
    unsigned major, minor, patch;
    TU_CHECK(sscanf(npyg_version_string(), "%u.%u.%u", &major, &minor, &patch) == 3, "version string %s",
             npyg_version_string());
    long v = major * 1000000L + minor * 1000L + patch;
    TU_CHECK(npyg_version_number() == v && NPYG_VERSION_NUMBER == v, "version number %ld for %s",
             npyg_version_number(), npyg_version_string());
    long gen = major ? major * 1000000L : minor * 1000L; /* the generation's first version */
    long next = major ? gen + 1000000L : gen + 1000L;    /* the next generation's */
    TU_CHECK(npyg_version_compatible(v), "the header it was built with");
    TU_CHECK(npyg_version_compatible(gen), "the first version of its generation");
    TU_CHECK(!npyg_version_compatible(v + 1), "a program built for a newer library");
    TU_CHECK(!npyg_version_compatible(next), "the next generation");
    TU_CHECK(gen == 0 || !npyg_version_compatible(gen - 1), "the previous generation");
    TU_CHECK(!npyg_version_compatible(-1), "a negative number");
}

/* ---------------- allocation: the bound and every failure point ---------------- */

TEST(every_allocation_failure_is_reported_cleanly)
{
    /* SQLite-style: fail the 1st, 2nd, ... allocation; each run must end
       in NPYG_ENOMEM (or succeed once nothing fails) with nothing leaked. */
    static const char dict[] =
        "{'descr': [('a', '<i4'), ('b', [('c', '|S3', (2,)), ('d', '<f8')]), (('t', 'e'), '<U4')], "
        "'fortran_order': False, 'shape': (2, 3), }";
    unsigned char f[1024];
    unsigned char payload[6 * (4 + 6 + 8 + 16)] = {0};
    size_t n = make_npy(f, 1, dict, payload, sizeof payload);
    long succeeded_at = -1;
    for (long k = 0; k < 200 && succeeded_at < 0; k++) {
        tu_alloc fa;
        npyg_alloc al;
        npyg_ctx *ctx = tu_ctx_failing_at(&fa, &al, k);
        if (!ctx) {
            TU_CHECK(k == 0, "context creation failed at allocation %ld", k);
            TU_CHECK(fa.now == 0, "leak after failed ctx_new");
            continue;
        }
        npyg_set_input_buffer(ctx, f, n);
        int rc = npyg_validate(ctx);
        if (rc == 0) succeeded_at = k;
        else TU_CHECK(rc == NPYG_ENOMEM, "allocation %ld failing gave %s", k, npyg_error_name(rc));
        /* A context survives a failed parse: the same file parses next time. */
        fa.fail_at = -1;
        npyg_set_input_buffer(ctx, f, n);
        TU_CHECK(npyg_validate(ctx) == 0, "context unusable after ENOMEM");
        npyg_ctx_free(ctx);
        TU_CHECK(fa.now == 0, "%zu bytes leaked when allocation %ld failed", fa.now, k);
    }
    TU_CHECK(succeeded_at > 0, "never succeeded");
}

TEST(worst_case_alloc_bounds_a_pathological_header)
{
    /* The densest literal: one value per byte of text, at the size limit. */
    npyg_limits l;
    npyg_limits_default(&l);
    size_t hl = l.max_header_bytes;
    char *dict = malloc(hl + 1);
    static const char head[] = "{'descr': '|u1', 'fortran_order': False, 'shape': (1,), 'x': [";
    strcpy(dict, head);
    size_t k = strlen(head);
    while (k + 4 < hl - 100) { dict[k++] = '0'; dict[k++] = ','; }
    strcpy(dict + k, "]}");
    unsigned char *f = malloc(hl + 64);
    size_t n = make_npy(f, 1, dict, NULL, 0);
    tu_alloc fa;
    tu_alloc_init(&fa, UINT64_MAX);
    npyg_alloc al = tu_allocator(&fa);
    npyg_options o = {.alloc = &al, .limits = &l};
    npyg_ctx *ctx = npyg_ctx_new(&o);
    npyg_set_input_buffer(ctx, f, n);
    int rc = npyg_validate(ctx);
    /* A fifth key makes it invalid, but only after the whole literal is read. */
    TU_CHECK(rc == NPYG_EKEYS, "got %s", npyg_error_name(rc));
    TU_CHECK(fa.peak <= npyg_worst_case_alloc(&l), "peak %zu over bound %llu", fa.peak,
          (unsigned long long)npyg_worst_case_alloc(&l));
    npyg_ctx_free(ctx);
    free(dict);
    free(f);
}

TEST(max_alloc_bytes_is_a_limit_not_an_out_of_memory)
{
    npyg_limits l;
    npyg_limits_default(&l);
    l.max_alloc_bytes = 8192; /* room for the context and a little */
    npyg_options o = {.limits = &l};
    npyg_ctx *ctx = npyg_ctx_new(&o);
    TU_CHECK(ctx != NULL, "ctx");
    char dict[4096];
    strcpy(dict, "{'descr': [");
    for (int k = 0; k < 150; k++) sprintf(dict + strlen(dict), "('f%d', '<i4'), ", k);
    strcat(dict, "], 'fortran_order': False, 'shape': (), }");
    unsigned char f[8192];
    static unsigned char payload[600];
    size_t n = make_npy(f, 1, dict, payload, sizeof payload);
    npyg_set_input_buffer(ctx, f, n);
    TU_CHECK(npyg_validate(ctx) == NPYG_ELIMIT_ALLOC, "got %s", npyg_error_name(npyg_last_error(ctx)->code));
    npyg_ctx_free(ctx);
}

/* numpy's writer spelling of a header with `fields` '<i4' fields. */
static unsigned char *struct_npy(int fields, size_t *n)
{
    size_t cap = 64 + (size_t)fields * 24;
    char *dict = malloc(cap);
    unsigned char *f = malloc(cap + 128);
    if (!dict || !f) abort();
    size_t len = (size_t)sprintf(dict, "{'descr': [");
    for (int k = 0; k < fields; k++) len += (size_t)sprintf(dict + len, "('f%d', '<i4'), ", k);
    sprintf(dict + len, "], 'fortran_order': False, 'shape': (0,), }");
    *n = make_npy(f, 2, dict, NULL, 0);
    free(dict);
    return f;
}

/* A context for large headers, held to cap bytes. */
static npyg_ctx *capped_ctx(uint64_t cap)
{
    npyg_limits l;
    npyg_limits_default(&l);
    l.max_header_bytes = 100000;
    l.max_fields = 100000;
    l.max_alloc_bytes = cap;
    npyg_options o = {.limits = &l};
    return npyg_ctx_new(&o);
}

static int parse_fresh(uint64_t cap, const unsigned char *f, size_t n)
{
    npyg_ctx *ctx = capped_ctx(cap);
    if (!ctx) return -1;
    npyg_set_input_buffer(ctx, f, n);
    int rc = npyg_validate(ctx);
    npyg_ctx_free(ctx);
    return rc;
}

/* A context keeps arena blocks from one parse for the next; they must
   never cost a later parse its verdict under max_alloc_bytes. The
   smallest cap at which a 300-field header parses in a new context is
   found by bisection; a context that first failed on a 2,000-field
   header, keeping the blocks it took, must give the same verdicts at that
   cap and one byte below it. */
TEST(blocks_kept_between_parses_never_change_a_verdict)
{
    size_t nb, nm;
    unsigned char *big = struct_npy(2000, &nb), *medium = struct_npy(300, &nm);
    uint64_t lo = 1, hi = UINT64_C(1) << 26;
    TU_CHECK(parse_fresh(hi, medium, nm) == 0, "300 fields do not parse at %llu bytes", (unsigned long long)hi);
    while (lo + 1 < hi) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (parse_fresh(mid, medium, nm) == 0) hi = mid;
        else lo = mid;
    }
    TU_CHECK(parse_fresh(hi - 1, medium, nm) == NPYG_ELIMIT_ALLOC, "one byte below the smallest cap");
    for (uint64_t cap = hi - 1; cap <= hi; cap++) {
        npyg_ctx *ctx = capped_ctx(cap);
        TU_CHECK(ctx != NULL, "ctx");
        if (!ctx) continue;
        npyg_set_input_buffer(ctx, big, nb);
        int brc = npyg_validate(ctx);
        TU_CHECK(brc == NPYG_ELIMIT_ALLOC, "2,000 fields at cap %llu: %s", (unsigned long long)cap,
                 npyg_error_name(brc));
        npyg_set_input_buffer(ctx, medium, nm);
        int rc = npyg_validate(ctx);
        int want = cap == hi ? 0 : NPYG_ELIMIT_ALLOC;
        TU_CHECK(rc == want, "300 fields after 2,000 at cap %llu: %s, a new context gives %s",
                 (unsigned long long)cap, npyg_error_name(rc), npyg_error_name(want));
        npyg_ctx_free(ctx);
    }
    free(big);
    free(medium);
}

/* ---------------- limits: each has its own code ---------------- */
static int parse_with(const npyg_limits *l, const char *dict, size_t plen)
{
    unsigned char *f = calloc(1, 70000 + plen);
    static unsigned char zeros[4096];
    size_t n = make_npy(f, 2, dict, zeros, plen);
    npyg_options o = {.limits = l};
    npyg_ctx *ctx = npyg_ctx_new(&o);
    npyg_set_input_buffer(ctx, f, n);
    int rc = npyg_validate(ctx);
    npyg_ctx_free(ctx);
    free(f);
    return rc;
}

TEST(each_limit_has_its_own_error)
{
    npyg_limits l;
    npyg_limits_default(&l);
    l.max_header_bytes = 63;
    TU_CHECK(parse_with(&l, F8_3, 24) == NPYG_ELIMIT_HEADER, "header");
    npyg_limits_default(&l);
    l.max_dims = 2;
    TU_CHECK(parse_with(&l, "{'descr': '|u1', 'fortran_order': False, 'shape': (1, 1, 1), }", 1) == NPYG_ELIMIT_DIMS, "dims");
    npyg_limits_default(&l);
    l.max_fields = 2;
    TU_CHECK(parse_with(&l, "{'descr': [('a','|u1'),('b','|u1'),('c','|u1')], 'fortran_order': False, 'shape': (), }", 3) ==
              NPYG_ELIMIT_FIELDS, "fields");
    npyg_limits_default(&l);
    l.max_depth = 2;
    TU_CHECK(parse_with(&l, "{'descr': [('a', [('b', [('c', '|u1')])])], 'fortran_order': False, 'shape': (), }", 1) ==
              NPYG_ELIMIT_DEPTH, "depth");
    npyg_limits_default(&l);
    l.max_payload_bytes = 23;
    TU_CHECK(parse_with(&l, F8_3, 24) == NPYG_ELIMIT_PAYLOAD, "payload");
    l.max_payload_bytes = 24;
    TU_CHECK(parse_with(&l, F8_3, 24) == 0, "payload exactly at the limit");
}

TEST(default_header_limit_is_numpys_10000)
{
    /* numpy: N = 10000 passes, 10001 is refused (max_header_size). */
    for (int want = 10000; want <= 10001; want++) {
        unsigned char *f = calloc(1, 10100);
        size_t dl = strlen(F8_3);
        memcpy(f, "\x93NUMPY\x01\x00", 8);
        f[8] = (unsigned char)(want & 0xFF);
        f[9] = (unsigned char)(want >> 8);
        memcpy(f + 10, F8_3, dl);
        memset(f + 10 + dl, ' ', (size_t)want - dl - 1);
        f[10 + want - 1] = '\n';
        memcpy(f + 10 + want, three, sizeof three);
        npyg_ctx *ctx = npyg_ctx_new(NULL);
        npyg_set_input_buffer(ctx, f, 10 + (size_t)want + sizeof three);
        int rc = npyg_validate(ctx);
        TU_CHECK(want == 10000 ? rc == 0 : rc == NPYG_ELIMIT_HEADER, "header of %d bytes: %s", want, npyg_error_name(rc));
        npyg_ctx_free(ctx);
        free(f);
    }
}

/* ---------------- inputs ---------------- */
typedef struct stop_after {
    size_t calls;
} stop_after;

static int stop_sink(void *user, const void *data, size_t len)
{
    (void)data;
    (void)len;
    return ++((stop_after *)user)->calls >= 1;
}

TEST(payload_sink_can_stop_validation)
{
    unsigned char f[256];
    size_t n = make_npy(f, 1, F8_3, three, sizeof three);
    npyg_ctx *ctx = npyg_ctx_new(NULL);
    stop_after s = {0};
    npyg_set_payload_sink(ctx, stop_sink, &s);
    npyg_set_input_buffer(ctx, f, n);
    TU_CHECK(npyg_validate(ctx) == NPYG_EIO, "sink stop");
    TU_CHECK(s.calls == 1, "sink calls %zu", s.calls);
    npyg_ctx_free(ctx);
}

typedef struct sum_sink {
    size_t bytes, calls;
} sum_sink;

static int summing(void *user, const void *data, size_t len)
{
    sum_sink *s = user;
    (void)data;
    s->bytes += len;
    s->calls++;
    return len > 64 * 1024;
}

static long long failing_read(void *user, void *buf, size_t len)
{
    (void)user;
    (void)buf;
    (void)len;
    return -1;
}

TEST(read_errors_are_io_errors)
{
    npyg_ctx *ctx = npyg_ctx_new(NULL);
    npyg_set_input_read(ctx, failing_read, NULL);
    TU_CHECK(npyg_validate(ctx) == NPYG_EIO, "callback error");
    npyg_set_input_fd(ctx, -1);
    TU_CHECK(npyg_validate(ctx) == NPYG_EIO, "bad fd");
    npyg_ctx_free(ctx);
}

TEST(devices_and_directories_are_refused)
{
    npyg_ctx *ctx = npyg_ctx_new(NULL);
    int fd = open("/dev/zero", O_RDONLY);
    npyg_set_input_fd(ctx, fd);
    TU_CHECK(fd >= 0 && npyg_validate(ctx) == NPYG_ENOTREG, "/dev/zero");
    if (fd >= 0) close(fd);
    fd = open("/", O_RDONLY);
    npyg_set_input_fd(ctx, fd);
    TU_CHECK(fd >= 0 && npyg_validate(ctx) == NPYG_ENOTREG, "directory");
    if (fd >= 0) close(fd);
    npyg_ctx_free(ctx);
}

TEST(payload_streams_in_bounded_chunks_from_a_pipe)
{
    /* 1 MiB payload through a pipe: chunks of at most 64 KiB, all bytes seen. */
    enum { N = 1 << 17 };
    size_t plen = (size_t)N * 8;
    unsigned char *f = calloc(1, plen + 256);
    size_t n = make_npy(f, 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (131072,), }", NULL, 0);
    n += plen;
    int p[2];
    TU_CHECK(pipe(p) == 0, "pipe");
    pid_t pid = fork();
    if (pid == 0) {
        close(p[0]);
        size_t off = 0;
        while (off < n) {
            ssize_t w = write(p[1], f + off, n - off);
            if (w <= 0) _exit(1);
            off += (size_t)w;
        }
        _exit(0);
    }
    close(p[1]);
    npyg_ctx *ctx = npyg_ctx_new(NULL);
    sum_sink s = {0, 0};
    npyg_set_payload_sink(ctx, summing, &s);
    npyg_set_input_fd(ctx, p[0]);
    int rc = npyg_validate(ctx);
    TU_CHECK(rc == 0, "%s", npyg_last_error(ctx)->message);
    TU_CHECK(s.bytes == plen && s.calls >= plen / (64 * 1024), "sink saw %zu bytes in %zu calls", s.bytes, s.calls);
    close(p[0]);
    int status = -1;
    TU_CHECK(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0,
             "the writer did not finish cleanly (status %d)", status);
    npyg_ctx_free(ctx);
    free(f);
}

TEST(fd_is_read_from_its_current_position_which_stays_put)
{
    /* numpy reads from the handle's position (test_large_file_support). */
    char path[] = "/tmp/npyg-test-XXXXXX";
    int fd = mkstemp(path);
    unsigned char f[256];
    size_t n = make_npy(f, 1, F8_3, three, sizeof three);
    TU_CHECK(write(fd, "JUNK", 4) == 4 && write(fd, f, n) == (ssize_t)n, "write");
    lseek(fd, 4, SEEK_SET);
    npyg_ctx *ctx = npyg_ctx_new(NULL);
    npyg_set_input_fd(ctx, fd);
    TU_CHECK(npyg_validate(ctx) == 0, "%s", npyg_last_error(ctx)->message);
    TU_CHECK(npyg_get_info(ctx) && npyg_get_info(ctx)->trailing_bytes == 0, "trailing");
    TU_CHECK(lseek(fd, 0, SEEK_CUR) == 4, "a regular file's position is left where it was");
    npyg_ctx_free(ctx);
    close(fd);
    unlink(path);
}

TEST(header_only_parse_needs_no_payload)
{
    unsigned char f[256];
    size_t n = make_npy(f, 1, F8_3, NULL, 0);
    npyg_ctx *ctx = npyg_ctx_new(NULL);
    TU_CHECK(npyg_parse_header(ctx, f, n) == 0, "header only");
    npyg_set_input_buffer(ctx, f, n);
    TU_CHECK(npyg_validate(ctx) == NPYG_ETRUNC_PAYLOAD, "validate without payload");
    npyg_ctx_free(ctx);
}

TEST(trailing_bytes_warn_by_default_and_fail_under_strict)
{
    unsigned char f[256];
    size_t n = make_npy(f, 1, F8_3, three, sizeof three);
    f[n++] = 0;
    npyg_ctx *ctx = npyg_ctx_new(NULL);
    npyg_set_input_buffer(ctx, f, n);
    TU_CHECK(npyg_validate(ctx) == 0, "default");
    TU_CHECK(npyg_get_info(ctx)->warnings & NPYG_W_TRAILING, "warning");
    TU_CHECK(npyg_get_info(ctx)->trailing_bytes == 1, "count");
    npyg_ctx_free(ctx);
    npyg_options o = {.profile = NPYG_PROFILE_STRICT};
    ctx = npyg_ctx_new(&o);
    npyg_set_input_buffer(ctx, f, n);
    TU_CHECK(npyg_validate(ctx) == NPYG_ETRAILING, "strict");
    npyg_ctx_free(ctx);
}

/* Case k, the file f[0..n): the strict profile gives strict (0: accepts),
   and the numpy profile accepts it, with NPYG_W_NONCANON exactly when the
   strict one refuses. */
static void strict_and_numpy(const unsigned char *f, size_t n, int strict, size_t k)
{
    npyg_options o = {.profile = NPYG_PROFILE_STRICT};
    npyg_ctx *ctx = npyg_ctx_new(&o);
    npyg_set_input_buffer(ctx, f, n);
    int rc = npyg_validate(ctx);
    TU_CHECK(rc == strict, "case %zu: %s %s", k, npyg_error_name(rc), npyg_last_error(ctx)->message);
    npyg_ctx_free(ctx);
    ctx = npyg_ctx_new(NULL);
    npyg_set_input_buffer(ctx, f, n);
    TU_CHECK(npyg_validate(ctx) == 0, "numpy profile, case %zu", k);
    TU_CHECK(((npyg_get_info(ctx)->warnings & NPYG_W_NONCANON) != 0) == (strict != 0), "warning, case %zu", k);
    npyg_ctx_free(ctx);
}

TEST(strict_requires_the_writers_text)
{
    static const struct { const char *dict; int strict; } cases[] = {
        {F8_3, 0},
        {"{'descr': '<f8', 'shape': (3,), 'fortran_order': False, }", NPYG_ENONCANON},   /* key order */
        {"{\"descr\": '<f8', 'fortran_order': False, 'shape': (3,), }", NPYG_ENONCANON},  /* quotes */
        {"{'descr': '<f8', 'fortran_order': False, 'shape': (3,)}", NPYG_ENONCANON},     /* no ", " */
        {"{'descr': 'f8', 'fortran_order': False, 'shape': (3,), }", NPYG_ENONCANON},    /* native order */
        {"{'descr': '<f8', 'fortran_order': False, 'shape': (0x3,), }", NPYG_ENONCANON}, /* hex */
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        unsigned char f[256];
        size_t n = make_npy(f, 1, cases[k].dict, three, sizeof three);
        strict_and_numpy(f, n, cases[k].strict, k);
    }
}

/* Every field of a structured descr is held to the writer's spelling: the
   canonical check compares a run of fields of one dtype against the
   spelling the text gave the first of them, and names of 16 bytes or more
   are scanned sixteen bytes at a time. The canonical texts are those
   numpy 1.24's np.save writes for these dtypes. */
TEST(strict_requires_the_writers_text_in_every_field)
{
#define TAIL "], 'fortran_order': False, 'shape': (3,), }"
#define LONG_A "('longname_aaaaaaaaaaa', '<f8'), "
    static const struct { const char *dict; int strict; } cases[] = {
        {"{'descr': [('a', '<f8'), ('b', '<f8')" TAIL, 0},
        {"{'descr': [('a', '<f8'), ('b', \"<f8\")" TAIL, NPYG_ENONCANON},
        {"{'descr': [('a', '<f8'), ('b', '<f8' )" TAIL, NPYG_ENONCANON},
        {"{'descr': [('a', '<f8'), ('b', '<f4'), ('c', \"<f4\")" TAIL, NPYG_ENONCANON},
        {"{'descr': [" LONG_A "('longname_bbbb\"bbbbb', '<f8')" TAIL, 0},
        {"{'descr': [" LONG_A "('longname_bbbb\\x85bbbbb', '<f8')" TAIL, 0},
        {"{'descr': [(\"longname_aaaaaaaaaaa\", '<f8'), ('b', '<f8')" TAIL, NPYG_ENONCANON},
        {"{'descr': [" LONG_A "('longname_bbbb\x85" "bbbbb', '<f8')" TAIL, NPYG_ENONCANON}, /* raw U+0085 */
        {"{'descr': [" LONG_A "('longname_bbbb\\tbbbbb', '<f8')" TAIL, 0},
        {"{'descr': [" LONG_A "('longname_bbbb\\x09bbbbb', '<f8')" TAIL, NPYG_ENONCANON}, /* repr writes \t */
    };
#undef TAIL
#undef LONG_A
    static const unsigned char payload[48];
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        unsigned char f[512];
        size_t n = make_npy(f, 1, cases[k].dict, payload, sizeof payload);
        strict_and_numpy(f, n, cases[k].strict, k);
    }
}

TEST(strict_requires_64_byte_alignment_numpy_profile_warns)
{
    /* numpy <= 1.13 padded to 16 bytes: data at offset 80. */
    static const char hdr[] = "{'descr': '<f8', 'fortran_order': False, 'shape': (3,), }            \n";
    unsigned char f[256];
    memcpy(f, "\x93NUMPY\x01\x00", 8);
    f[8] = (unsigned char)(sizeof hdr - 1);
    f[9] = 0;
    memcpy(f + 10, hdr, sizeof hdr - 1);
    size_t off = 10 + sizeof hdr - 1;
    TU_CHECK(off == 80, "offset %zu", off);
    memcpy(f + off, three, sizeof three);
    npyg_ctx *ctx = npyg_ctx_new(NULL);
    npyg_set_input_buffer(ctx, f, off + sizeof three);
    TU_CHECK(npyg_validate(ctx) == 0, "numpy profile");
    TU_CHECK(npyg_get_info(ctx)->warnings & NPYG_W_LEGACY_ALIGN, "legacy warning");
    npyg_ctx_free(ctx);
    npyg_options o = {.profile = NPYG_PROFILE_STRICT};
    ctx = npyg_ctx_new(&o);
    npyg_set_input_buffer(ctx, f, off + sizeof three);
    TU_CHECK(npyg_validate(ctx) == NPYG_EALIGN, "strict");
    npyg_ctx_free(ctx);
}

TEST(error_offsets_point_into_the_header)
{
    /* The fault is the key 'shap' at byte 10 + its position in the text. */
    static const char dict[] = "{'descr': '<f8', 'fortran_order': False, 'shap': (3,), }";
    unsigned char f[256];
    size_t n = make_npy(f, 1, dict, three, sizeof three);
    npyg_ctx *ctx = npyg_ctx_new(NULL);
    npyg_set_input_buffer(ctx, f, n);
    TU_CHECK(npyg_validate(ctx) == NPYG_EKEYS, "keys");
    TU_CHECK(npyg_last_error(ctx)->offset == 10 + (uint64_t)(strstr(dict, "'shap'") - dict), "offset %llu",
          (unsigned long long)npyg_last_error(ctx)->offset);
    npyg_ctx_free(ctx);
}

TEST(format_descr_reports_the_length_like_snprintf)
{
    static const char dict[] = "{'descr': [('a', '<i4'), ('b', '|S3', (2,))], 'fortran_order': False, 'shape': (), }";
    unsigned char f[256];
    static unsigned char payload[10];
    size_t n = make_npy(f, 1, dict, payload, sizeof payload);
    npyg_ctx *ctx = npyg_ctx_new(NULL);
    npyg_set_input_buffer(ctx, f, n);
    TU_CHECK(npyg_validate(ctx) == 0, "%s", npyg_last_error(ctx)->message);
    const char *want = "[('a', '<i4'), ('b', '|S3', (2,))]"; /* numpy's dtype.descr repr */
    char small[8];
    size_t need = npyg_format_descr(npyg_get_info(ctx)->dtype, small, sizeof small);
    TU_CHECK(need == strlen(want) && strlen(small) == sizeof small - 1, "need %zu", need);
    char full[64];
    npyg_format_descr(npyg_get_info(ctx)->dtype, full, sizeof full);
    TU_CHECK(strcmp(full, want) == 0, "%s", full);
    npyg_ctx_free(ctx);
}

/* A message quotes the header; what it quotes reads as Python's repr()
   writes it ('<\u202ex\x9b' for a bidi override and a C1 CSI), so no byte
   of it can drive a terminal or reorder the line. */
TEST(messages_escape_controls_and_bidi_like_repr)
{
    const char *dicts[2] = {
        "{'descr': '<\xe2\x80\xaex\xc2\x9b', 'fortran_order': False, 'shape': (1,), }", /* v3: UTF-8 */
        "{'descr': '<x\x9b', 'fortran_order': False, 'shape': (1,), }", /* v2 (latin1): raw 0x9B */
    };
    const int major[2] = {3, 2};
    for (int k = 0; k < 2; k++) {
        unsigned char f[256];
        size_t n = make_npy(f, major[k], dicts[k], NULL, 0);
        npyg_ctx *ctx = npyg_ctx_new(NULL);
        npyg_set_input_buffer(ctx, f, n);
        TU_CHECK(npyg_validate(ctx) == NPYG_EDESCR, "v%d: unknown type", major[k]);
        const char *m = npyg_last_error(ctx)->message;
        bool clean = true;
        for (const unsigned char *c = (const unsigned char *)m; *c; c++)
            if (*c < 0x20 || *c >= 0x7F) clean = false;
        TU_CHECK(clean, "v%d: message is printable ASCII: %s", major[k], m);
        if (k == 0) TU_CHECK(strstr(m, "'<\\u202ex\\x9b'") != NULL, "v3: repr-like escapes: %s", m);
        else TU_CHECK(strstr(m, "'<x\\x9b'") != NULL, "v2: the lone 0x9B byte escaped: %s", m);
        npyg_ctx_free(ctx);
    }
}

/* The names are the JSON records' contract (docs/json.md, and the
   schema's enum of HDF5 kinds): one call names them, for every set. */
TEST(warning_info_names_every_set_as_documented)
{
    static const struct {
        npyg_warning_set set;
        const char *names[13];
    } doc[] = {
        {NPYG_WARNINGS_NPY,
         {"trailing_bytes", "unaligned", "legacy_alignment", "noncanonical_header", "native_byte_order",
          "python2_long", "dims_over_32", "duplicate_key", "long_double", "zero_itemsize", "int_subarray_shape",
          "latin1_header", NULL}},
        {NPYG_WARNINGS_ZIP, {"not_npy_name", "not_npy", "non_ascii_name", NULL}},
        {NPYG_WARNINGS_PROBE, {"mat_subsys_offset", "mat_userblock", "mat_text", NULL}},
        {NPYG_WARNINGS_HDF5, {"storage_format", NULL}},
    };
    for (size_t s = 0; s < sizeof doc / sizeof doc[0]; s++) {
        size_t named = 0;
        for (unsigned bit = 1; bit; bit <<= 1) {
            const npyg_warning_desc *w = npyg_warning_info(doc[s].set, bit);
            if (!w) continue;
            TU_CHECK(w->bit == bit && w->text && w->text[0], "set %d bit %#x: row", (int)doc[s].set, bit);
            bool listed = false;
            for (size_t k = 0; doc[s].names[k]; k++) listed |= !strcmp(doc[s].names[k], w->name);
            TU_CHECK(listed, "set %d: '%s' is not documented", (int)doc[s].set, w->name);
            named++;
        }
        size_t documented = 0;
        while (doc[s].names[documented]) documented++;
        TU_CHECK(named == documented, "set %d: %zu names, %zu documented", (int)doc[s].set, named, documented);
        TU_CHECK(npyg_warning_info(doc[s].set, 3u) == NULL, "set %d: two bits at once", (int)doc[s].set);
        TU_CHECK(npyg_warning_info(doc[s].set, 0) == NULL, "set %d: no bit", (int)doc[s].set);
    }
    TU_CHECK(npyg_warning_info((npyg_warning_set)4, 1) == NULL && npyg_warning_info((npyg_warning_set)-1, 1) == NULL,
             "sets out of range");

    static const char *const kinds[] = {"dataset", "group", "link", "attribute", "datatype", "file"};
    size_t found = 0;
    for (int k = -1; k < 16; k++) {
        const char *n = npyg_hdf5_kind_name((npyg_hdf5_kind)k);
        if (!n) continue;
        bool listed = false;
        for (size_t j = 0; j < sizeof kinds / sizeof kinds[0]; j++) listed |= !strcmp(kinds[j], n);
        TU_CHECK(listed, "kind %d: '%s' is not the schema's", k, n);
        found++;
    }
    TU_CHECK(found == sizeof kinds / sizeof kinds[0], "%zu kinds named", found);
}

int main(int argc, char **argv)
{
    if (tu_bad_args(argc, 2, "test_api NPYGUARD_H")) return 2;
    header_path = argv[1];
    RUN(valid_file_reports_what_the_spec_says);
    RUN(context_refuses_unknown_flags_and_bad_limits);
    RUN(no_result_before_a_successful_parse);
    RUN(error_table_is_complete_and_stable);
    RUN(version_number_and_abi_rule);
    RUN(warning_info_names_every_set_as_documented);
    RUN(every_allocation_failure_is_reported_cleanly);
    RUN(worst_case_alloc_bounds_a_pathological_header);
    RUN(max_alloc_bytes_is_a_limit_not_an_out_of_memory);
    RUN(blocks_kept_between_parses_never_change_a_verdict);
    RUN(each_limit_has_its_own_error);
    RUN(default_header_limit_is_numpys_10000);
    RUN(payload_sink_can_stop_validation);
    RUN(read_errors_are_io_errors);
    RUN(devices_and_directories_are_refused);
    RUN(payload_streams_in_bounded_chunks_from_a_pipe);
    RUN(fd_is_read_from_its_current_position_which_stays_put);
    RUN(header_only_parse_needs_no_payload);
    RUN(trailing_bytes_warn_by_default_and_fail_under_strict);
    RUN(strict_requires_the_writers_text);
    RUN(strict_requires_the_writers_text_in_every_field);
    RUN(strict_requires_64_byte_alignment_numpy_profile_warns);
    RUN(error_offsets_point_into_the_header);
    RUN(format_descr_reports_the_length_like_snprintf);
    RUN(messages_escape_controls_and_bidi_like_repr);
    return tu_finish();
}
