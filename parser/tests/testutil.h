/* SPDX-License-Identifier: BSD-3-Clause */
/* Plumbing shared by the C tests: the one assertion macro, an allocator
   that counts, caps and can fail on purpose, a reader that hands out input
   in small random chunks, the divergences.tsv loader, and the header-field
   comparison against a manifest entry written by numpy. */
#ifndef NPYG_TESTUTIL_H
#define NPYG_TESTUTIL_H

#include "npyguard.h"

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The assertion every C test uses: a pass is counted; a failure is
   counted and printed with its place and the case in tu_current. */
extern int tu_passed, tu_failed;
extern const char *tu_current;
void tu_fail(const char *file, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
#define TU_CHECK(cond, ...)                                     \
    do {                                                        \
        if (cond) tu_passed++;                                  \
        else tu_fail(__FILE__, __LINE__, __VA_ARGS__);          \
    } while (0)

/* A data-driven test must not pass on zero cases: got must reach want,
   where want comes from the data (a manifest, a table), and be above 0. */
#define TU_AT_LEAST(got, want, what)                                                        \
    TU_CHECK((size_t)(got) >= (size_t)(want) && (size_t)(got) > 0, "%s: %zu checked, %zu expected", \
             what, (size_t)(got), (size_t)(want))

/* Prints the tally; the exit status of the test. */
int tu_finish(void);

/* A test's main called with other than want - 1 arguments: prints
   "usage: USAGE" and is true (the test then exits 2). */
bool tu_bad_args(int argc, int want, const char *usage);

typedef struct tu_alloc {
    uint64_t cap;     /* refuse requests that would pass this total */
    uint64_t now, peak;
    unsigned refused; /* requests refused for the cap */
    long fail_at;     /* the 0-based request that fails on purpose; -1 none */
    long calls;
} tu_alloc;

/* A counting allocator with no failure planned. */
void tu_alloc_init(tu_alloc *t, uint64_t cap);
npyg_alloc tu_allocator(tu_alloc *t);
/* A default context whose allocator refuses its n-th request (0-based) and
   nothing else; t and al must outlive it. NULL if that request was the
   context's own. */
npyg_ctx *tu_ctx_failing_at(tu_alloc *t, npyg_alloc *al, long n);

/* Input handed out 1..max bytes at a time, from a fixed seed. */
typedef struct tu_chunks {
    const unsigned char *p;
    size_t len, pos;
    unsigned seed, max;
} tu_chunks;
long long tu_chunked_read(void *user, void *buf, size_t n);

/* Bytes from the lowercase hex digit pairs at hex[0..nhex), up to the
   first pair that is not one: the files of numpy_cases.tsv. */
size_t tu_unhex(const char *hex, size_t nhex, unsigned char *out);

/* The whole file, or NULL; *len is its size. */
unsigned char *tu_slurp(const char *path, size_t *len);
/* DIR/NAME, whole, into path[4096] and a buffer, and NAME becomes
   tu_current; NULL (a failed check) if it cannot be read. */
unsigned char *tu_read_case(const char *dir, const char *name, char *path, size_t *len);
/* The same, and then label becomes tu_current, for the checks that follow. */
unsigned char *tu_read_as(const char *label, const char *dir, const char *name, char *path, size_t *len);

/* DIR/manifest.json, or NULL after printing why. */
json_t *tu_load_manifest(const char *dir);

/* Allocation failures, one at a time: run() gets a fresh default context
   whose n-th allocation fails, for n = 0, 1, ... until a run meets no
   failure. Every refusal must be NPYG_ENOMEM and nothing may leak. run
   returns its first error; cnt is its counting allocator, for a bound.
   label becomes tu_current. */
void tu_torture(const char *label, int (*run)(npyg_ctx *ctx, tu_alloc *cnt, void *user), void *user);

/* Opens the archive in buf (zl NULL for the default limits) and takes its
   members in order through member (NULL: npyg_zip_validate_member) until
   one fails. Returns the first error; failed, when not NULL, gets the
   failing member's name, "" when none failed or the archive itself did. */
int tu_zip_walk(npyg_ctx *ctx, const unsigned char *buf, size_t len, const npyg_zip_limits *zl,
                int (*member)(npyg_zip *z, size_t i, void *user), void *user, char *failed, size_t failed_size);

/* npyg_probe_input on the input set last, its info copied (zeros when
   there is none), so that two probes can be compared. */
int tu_probe(npyg_ctx *ctx, npyg_probe_info *info);

/* The code with this symbolic name ("NPYG_EKEYS"), or -1. */
int tu_code_of(const char *name);

/* parser/tests/divergences.tsv: name, npyguard's code, DIVERGENCES.md
   section. Rows naming a corpus file (ending in .npy) belong to
   test_corpus, the others to test_cases. */
typedef struct tu_div {
    char *name;
    int code;
    bool used;
} tu_div;
typedef struct tu_divs {
    tu_div *rows;
    size_t n;
} tu_divs;
/* 0, or -1 after printing why (unreadable, malformed row, unknown code). */
int tu_divs_load(tu_divs *d, const char *path);
/* The row for name, or NULL; find also marks it used by a test case. */
const tu_div *tu_divs_lookup(const tu_divs *d, const char *name);
const tu_div *tu_divs_find(tu_divs *d, const char *name);
/* Fails every row of the corpus's (corpus true) or the cases' share that
   no test case looked up: a row that matches nothing is a stale row. */
void tu_divs_check_used(const tu_divs *d, bool corpus);
void tu_divs_free(tu_divs *d);

/* A manifest integer (big ones are decimal strings); UINT64_MAX if absent. */
uint64_t tu_json_u64(const json_t *v);
/* Compares every header field npyguard reports with the manifest entry
   numpy measured (version, header_len, data_offset, shape, fortran_order,
   itemsize, count, payload_bytes, trailing_bytes, descr_repr). */
void tu_check_fields(const npyg_info *in, const json_t *e);

#endif
