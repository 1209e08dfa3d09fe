/* Plumbing shared by the C tests: an allocator that counts, caps and can
   fail on purpose, a reader that hands out input in small random chunks,
   and small lookups. */
#ifndef NPYG_TESTUTIL_H
#define NPYG_TESTUTIL_H

#include "npyguard.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

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

/* Input handed out 1..max bytes at a time, from a fixed seed. */
typedef struct tu_chunks {
    const unsigned char *p;
    size_t len, pos;
    unsigned seed, max;
} tu_chunks;
long long tu_chunked_read(void *user, void *buf, size_t n);

/* Assertion counting for the data-driven tests: TU_CHECK counts a pass,
   or counts a failure and prints it with the case in tu_current. */
extern int tu_passed, tu_failed;
extern const char *tu_current;
#define TU_CHECK(cond, ...)                                     \
    do {                                                        \
        if (cond) tu_passed++;                                  \
        else {                                                  \
            tu_failed++;                                        \
            fprintf(stderr, "FAIL %s: ", tu_current);           \
            fprintf(stderr, __VA_ARGS__);                       \
            fputc('\n', stderr);                                \
        }                                                       \
    } while (0)

/* The whole file, or NULL; *len is its size. */
unsigned char *tu_slurp(const char *path, size_t *len);

/* The code with this symbolic name ("NPYG_EKEYS"), or -1. */
int tu_code_of(const char *name);

#endif
