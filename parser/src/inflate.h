/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Raw deflate (RFC 1951) inflation and the zip CRC-32, behind one small
 * interface so that the container code (zip.c) never names the library
 * doing the work. The build picks one backend (NPYG_INFLATE): ISA-L
 * (inflate_isal.c), the fast path, or zlib (inflate_zlib.c), the oracle.
 * Either gives zlib's verdict on every stream; fuzz/inflate_diff_fuzzer.c
 * holds the fast path to it.
 *
 * State is allocated once through the caller's allocator (zip.c passes
 * the context's, so it counts against max_alloc_bytes) and is bounded by
 * npyg__inflate_state_bound(). Nothing here needs the rest of the
 * library, so the differential harness builds a backend on its own.
 */
#ifndef NPYG_INFLATE_H
#define NPYG_INFLATE_H

#include <stddef.h>
#include <stdint.h>

typedef struct npyg__inflater npyg__inflater;

enum {
    NPYG__INF_MORE = 0, /* give more input or more room, or (neither used nor made) it is stuck: truncated */
    NPYG__INF_END = 1,  /* the final block has ended and all its output was delivered */
    NPYG__INF_BAD = -1, /* not deflate as zlib reads it; *msg says why */
    NPYG__INF_NOMEM = -2, /* the context refused memory the backend asks for late (zlib's window) */
};

/* Where the state's memory comes from; free gets the size alloc was
   asked for. */
typedef struct {
    void *(*alloc)(void *user, size_t size);
    void (*free)(void *user, void *p, size_t size);
    void *user;
} npyg__inflate_mem;

/* NULL if the allocator refuses. mem is copied. */
npyg__inflater *npyg__inflate_new(const npyg__inflate_mem *mem);
void npyg__inflate_free(npyg__inflater *f); /* NULL-safe */
/* Ready for a new stream, keeping the memory. */
void npyg__inflate_reset(npyg__inflater *f);

/* Inflates from [in, in+len) into [out, out+cap): *used input bytes
   taken, *made output bytes written. At NPYG__INF_END, len - *used is
   what follows the stream (whole bytes, as zlib counts them). */
int npyg__inflate_step(npyg__inflater *f, const uint8_t *in, size_t len, size_t *used, uint8_t *out, size_t cap,
                       size_t *made, const char **msg);

/* After NPYG__INF_END: bytes past the stream's end that the inflater
   took in earlier steps and could not hand back (ISA-L reads ahead a
   word at a time); zlib never does. Trailing data to the caller, as
   much as len - *used is. */
size_t npyg__inflate_unused(const npyg__inflater *f);

/* The zip (gzip, IEEE, reflected) CRC-32, continued from crc: 0 starts. */
uint32_t npyg__crc32(uint32_t crc, const void *p, size_t n);

/* The most a backend ever takes from the allocator, in bytes. */
size_t npyg__inflate_state_bound(void);

/* "isa-l" or "zlib", for --version and the benchmarks. */
const char *npyg__inflate_backend(void);

#endif
