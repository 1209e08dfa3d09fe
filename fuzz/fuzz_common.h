/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Shared by the fuzz harnesses: the input's configuration trailer, the
 * counting allocator that holds the parser to npyg_worst_case_alloc(), and
 * the invariant checks run on every result. Any inconsistency calls
 * npyg_fuzz_fail(), which prints why and aborts, so every engine (libFuzzer,
 * AFL++, the replay driver) reports it as a crash.
 */
#ifndef NPYG_FUZZ_COMMON_H
#define NPYG_FUZZ_COMMON_H

#include "npyguard.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#if defined(__GNUC__)
__attribute__((noreturn, format(printf, 1, 2)))
#endif
void npyg_fuzz_fail(const char *fmt, ...);

#define FUZZ_CHECK(cond, ...)                                   \
    do {                                                        \
        if (!(cond)) npyg_fuzz_fail(__VA_ARGS__);               \
    } while (0)

/* ------------------------------------------------------------------ */
/* The last NPYG_FUZZ_TRAILER bytes of an input are its configuration,  */
/* so that the engine mutates the API mode along with the bytes. An     */
/* input shorter than that runs with an all-zero (default) trailer.     */
/* ------------------------------------------------------------------ */
#define NPYG_FUZZ_TRAILER 4

typedef struct fuzz_config {
    uint32_t raw;
    npyg_profile profile;
    npyg_limits limits;
    bool sink;            /* hash the payload through npyg_set_payload_sink */
    bool sink_fails;      /* the sink refuses once it has seen sink_stop bytes */
    uint64_t sink_stop;
    bool read_error;      /* the read callback fails once, at read_error_at */
    bool use_fd;          /* also validate through a descriptor */
    uint32_t fail_alloc;  /* fail the Nth allocation (0: never) */
    uint32_t seed;        /* chunk sizes of the read callback */
    unsigned extra;       /* two bits a harness may use for itself */
} fuzz_config;

/* Every harness's first call: splits data into the file bytes and the
   trailer, and checks the library's tables (once per process). */
void fuzz_begin(const uint8_t *data, size_t size, const uint8_t **file,
                size_t *file_len, fuzz_config *cfg);

/* ------------------------------------------------------------------ */
/* Counting allocator                                                  */
/* ------------------------------------------------------------------ */
typedef struct fuzz_alloc {
    npyg_alloc alc;       /* pass &alc to npyg_ctx_new */
    uint64_t bound;       /* npyg_worst_case_alloc(limits) */
    uint64_t live_bytes;
    uint64_t live_blocks;
    uint64_t peak;
    uint32_t calls;
    uint32_t fail_at;     /* 1-based allocation to refuse; 0: none */
    bool failed;          /* an allocation was refused on purpose */
} fuzz_alloc;

void fuzz_alloc_init(fuzz_alloc *fa, const npyg_limits *limits, uint32_t fail_at);
/* Aborts if anything is still allocated (call after npyg_ctx_free). */
void fuzz_alloc_check_empty(const fuzz_alloc *fa);

/* Whether the call that returned rc met the refusal planned in fa (one
   that had not happened before it); if so, rc must be NPYG_ENOMEM. what
   names the call in the message. */
bool fuzz_refused(const fuzz_alloc *fa, bool failed_before, int rc, const char *what);

/* A context with the trailer's profile and limits on the counting
   allocator fa, which this initialises to refuse cfg->fail_alloc'th
   allocation and to hold everything under bound (0: npyg_worst_case_alloc
   of the limits). NULL when npyg_ctx_new fails, after checking that a
   refused allocation explains it and that nothing stays allocated. */
npyg_ctx *fuzz_start(const fuzz_config *cfg, fuzz_alloc *fa, uint64_t bound);

/* ------------------------------------------------------------------ */
/* Invariants                                                          */
/* ------------------------------------------------------------------ */

/* What a call reports, kept for comparison with another input path. */
typedef struct fuzz_result {
    int rc;
    npyg_error err;
    bool have_info;
    npyg_info info;      /* pointers are not to be followed after the next call */
    uint64_t shape_hash; /* so that shapes compare after the call is gone */
    uint64_t itemsize;
    char descr[512];     /* npyg_format_descr, cut short when longer */
    size_t descr_len;
} fuzz_result;

enum fuzz_call { CALL_HEADER, CALL_VALIDATE };

/* Checks what the API promises about the error state after a call that
   returned rc (any code, the zip ones included): a named code, strings,
   npyg_last_error agreeing, and for a failure a non-empty one-line message
   with no control character and an offset at most max_offset
   (UINT64_MAX where offsets do not point into the caller's input). */
void fuzz_check_error(const npyg_ctx *ctx, int rc, uint64_t max_offset);

/* Checks everything the API promises about the result of one call and
   fills *out. input_len: the bytes the call could see. */
void fuzz_check_result(const npyg_ctx *ctx, int rc, enum fuzz_call call,
                       uint64_t input_len, const fuzz_config *cfg,
                       const npyg_limits *limits, fuzz_result *out);

/* Checks the code tables and the warning strings once per run. */
void fuzz_check_tables(void);

/* Aborts unless a and b describe the same header (and, if payload is set,
   the same payload accounting). */
void fuzz_same_info(const fuzz_result *a, const fuzz_result *b, bool payload,
                    const char *what);

/* A 64-bit FNV-1a, enough to compare payload streams. */
#define FUZZ_HASH_INIT UINT64_C(0xcbf29ce484222325)
uint64_t fuzz_hash(uint64_t h, const void *p, size_t n);

/* A small deterministic generator for chunk sizes. */
uint32_t fuzz_rand(uint32_t *state);

/* A read callback over the input: each call hands out the size the
   harness's chunk policy draws (clamped to what was asked and what is
   left), and, when the trailer asks for a read error, fails once from a
   position derived from the seed. */
typedef size_t (*fuzz_chunk_fn)(uint32_t x, size_t asked);
typedef struct fuzz_reader {
    const uint8_t *p;
    size_t len, pos;
    uint32_t rng;
    fuzz_chunk_fn chunk;
    bool fail;          /* fail once, at fail_at */
    size_t fail_at;
    bool failed;
} fuzz_reader;
void fuzz_reader_init(fuzz_reader *r, const uint8_t *p, size_t len, const fuzz_config *cfg, fuzz_chunk_fn chunk);
long long fuzz_read_cb(void *user, void *buf, size_t len);

/* A payload sink that hashes what it is given and, when the trailer asks,
   refuses once sink_stop bytes have passed. */
typedef struct fuzz_sink {
    uint64_t hash, bytes, stop;
    bool fails, refused;
    size_t calls;
} fuzz_sink;
void fuzz_sink_reset(fuzz_sink *s, const fuzz_config *cfg);
int fuzz_sink_cb(void *user, const void *data, size_t len);

/* The descriptor input, when the trailer asks for one (use_fd): an
   in-memory file holding *skip = extra bytes of junk, then p, with the
   descriptor left at offset *skip, so a reader starts mid-file. -1 when
   the trailer does not ask, or it cannot be made (or off Linux). */
int fuzz_memfd(const fuzz_config *cfg, const uint8_t *p, size_t len, size_t *skip);

#endif
