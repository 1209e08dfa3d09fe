/* The library's internal contracts: the context, the arena, literal
   values and the steps each source file provides. Not installed. Every
   step returns 0 or an npyg_status (recorded in ctx->err) and gives its
   results through out-parameters. */
#ifndef NPYG_INTERNAL_H
#define NPYG_INTERNAL_H

#include "npyguard.h"

#include <stdarg.h>
#include <stdbool.h>
#include <string.h>

#define NPYG__MAGIC "\x93NUMPY"
#define NPYG__MAGIC_LEN 6
#define NPYG__CHUNK (64u * 1024u)     /* payload read/scan granularity */
#define NPYG__LITERAL_MAX_DEPTH 200   /* CPython's bracket nesting limit */
#define NPYG__ARENA_BLOCK 4096u
/* Standard blocks a context keeps between parses (768 KiB): a large
   structured header (2,300 fields, 66 KB) takes 163, and a context that
   gave them back after every such header had malloc return the memory to
   the system and fault it in again on the next one: 20 ms instead of
   0.4 ms for that header when it came between small ones. */
#define NPYG__ARENA_SPARES 192u

/* ---------------- limits.c: the one table of limits ---------------- */
/* Which struct holds a limit, in the context and in the per-call
   arguments kept for compatibility (npyg_limits, npyg_zip_limits,
   npyg_pickle_limits, npyg_hdf5_limits). */
enum { NPYG__LG_NPY, NPYG__LG_ZIP, NPYG__LG_PICKLE, NPYG__LG_HDF5 };
int npyg__limit_group(npyg_limit id);
/* A limit's field in a struct of its group. */
uint64_t npyg__limit_read(const void *group_struct, npyg_limit id);
void npyg__limit_write(void *group_struct, npyg_limit id, uint64_t value);
/* Within the limit's range (false for an unknown id). */
bool npyg__limit_ok(npyg_limit id, uint64_t value);
/* Every limit of a group's struct at its default. */
void npyg__limits_fill(int group, void *group_struct);
/* The first limit of a group's struct out of its range, or -1. */
int npyg__limits_bad(int group, const void *group_struct);
/* Every id has its row, every default lies in its range and every range
   fits its field (the tests ask). */
bool npyg__limits_table_ok(void);

/* ---------------- arena.c: every parse-time allocation ---------------- */
typedef struct npyg__block npyg__block;
/* A block's header, rounded so that its data stays 16-byte aligned. */
#define NPYG__BLOCK_HDR ((sizeof(void *) + sizeof(size_t) + 15u) & ~(size_t)15u)

typedef struct npyg__arena {
    npyg_alloc alloc;
    uint64_t *total;     /* shared counter of everything allocated */
    npyg__block *head;   /* blocks in use, newest first */
    npyg__block *spare;  /* blocks kept from earlier parses */
    uint32_t nspare;     /* at most NPYG__ARENA_SPARES */
    char *cur;           /* the free bytes at the end of head */
    size_t left;
    bool over_cap;       /* the last failure was the cap, not the allocator */
} npyg__arena;

/* size bytes, 8-aligned, or NULL (over_cap says why). Most requests fit
   in the current block: that case is inline, the rest is arena.c's. */
void *npyg__arena_alloc_slow(npyg__arena *a, size_t size);
static inline void *npyg__arena_alloc(npyg__arena *a, size_t size)
{
    size_t r = (size + 7u) & ~(size_t)7u;
    if (r - 1 < a->left) { /* 0 < r <= left; a wrapped or zero r goes on */
        void *p = a->cur;
        a->cur += r;
        a->left -= r;
        return p;
    }
    return npyg__arena_alloc_slow(a, size);
}
void npyg__arena_reset(npyg__arena *a);   /* keeps blocks for reuse */
void npyg__arena_release(npyg__arena *a); /* returns them all */
/* Returns the kept blocks to the allocator. */
void npyg__arena_drop_spares(npyg__arena *a);
/* The one decision on memory, for the arena and tracked allocations
   alike: whether size more bytes may be held now. max_alloc_bytes bounds
   everything the context holds, but the decision counts only what this
   parse holds: the spare blocks earlier parses kept for reuse are given
   back when they stand in the way (and the read buffer is freed when a
   call begins). So what a parse may allocate never depends on the parses
   before. */
bool npyg__charge(npyg_ctx *ctx, uint64_t size);
/* A point to come back to: npyg__arena_rewind gives back everything
   allocated since npyg__arena_mark, as if it had never been asked for
   (standard blocks to the spares, big ones to the allocator). */
typedef struct npyg__arena_mark {
    npyg__block *head, *next; /* head and what followed it */
    char *cur;
    size_t left;
    bool over_cap;
} npyg__arena_mark;
npyg__arena_mark npyg__arena_mark_now(const npyg__arena *a);
void npyg__arena_rewind(npyg__arena *a, npyg__arena_mark m);

/* Tracked allocation outside the arena (read buffer, the zip state). A
   refusal by the cap sets ctx->xalloc_over_cap, never the arena's flag. */
void *npyg__xalloc(npyg_ctx *ctx, size_t size);
void npyg__xfree(npyg_ctx *ctx, void *p, size_t size);

/* ---------------- Python literal values ---------------- */
typedef enum npyg__vtype {
    V_NONE, V_BOOL, V_INT, V_FLOAT, V_COMPLEX, V_STR, V_BYTES, V_ELLIPSIS,
    V_TUPLE, V_LIST, V_DICT, V_SET
} npyg__vtype;

typedef struct npyg__value npyg__value;
struct npyg__value {
    npyg__vtype type;
    bool negative;       /* V_INT: sign */
    bool big;            /* V_INT: magnitude >= 2**64 */
    bool py2long;        /* V_INT/V_FLOAT: an 'L' suffix was dropped */
    uint32_t offset;     /* offset in the header text */
    uint64_t u;          /* V_INT magnitude, V_BOOL value */
    const char *s;       /* V_STR (UTF-8) / V_BYTES; NUL-terminated */
    size_t len;
    uint32_t count;      /* containers: number of items (dict: pairs) */
    npyg__value *child;  /* first item; dict items alternate key, value */
    npyg__value *next;
};

/* ---------------- inputs (read.c) ---------------- */
typedef struct npyg__source {
    const uint8_t *buf; /* buffer input */
    size_t len;
    int fd;             /* descriptor input, or -1 */
    bool positional;    /* regular file: pread at start + pos, after prefix */
    uint64_t start;     /* the descriptor's offset when validation began */
    const uint8_t *prefix; /* the first bytes, already read (positional) */
    size_t prefix_len;
    npyg_read_fn fn;    /* callback input */
    void *user;
    uint64_t pos;       /* bytes consumed so far */
    bool size_known;    /* total size known without reading (buffer, regular file) */
    uint64_t size;
} npyg__source;

enum { NPYG__LOAD_NONE = 0, NPYG__LOAD_OPEN, NPYG__LOAD_DONE, NPYG__LOAD_RA /* a .ra file opened */ };

/* ---------------- the context ---------------- */
struct npyg_ctx {
    npyg_profile profile;
    /* One set of limits (limits.c's table; npyg_set_limit), held in the
       structs each format reads: a call's own struct, where the API still
       takes one, stands in for its group for that call. */
    npyg_limits limits;
    npyg_zip_limits zip_limits;
    npyg_pickle_limits pickle_limits;
    npyg_hdf5_limits hdf5_limits;
    npyg_alloc alloc;
    uint64_t allocated;  /* bytes currently allocated, arena included */
    npyg__arena arena;

    npyg_payload_fn sink;
    void *sink_user;

    uint64_t base;       /* file offset of header text, for diagnostics */
    int parse_space;     /* npyg_offset_space of the parser's own errors:
                            FILE, or MEMBER while zip.c feeds it a member */
    bool xalloc_over_cap; /* the last npyg__xalloc failure was the cap */
    npyg_error err;
    bool have_info;
    npyg_info info;
    bool have_ra_info;   /* ra.c: the last call was a successful .ra one */
    npyg_ra_info ra_info;

    uint8_t *readbuf;    /* NPYG__CHUNK bytes for fd/callback input; one call's */

    /* two-step load (load.c): the input between npyg_open_* and
       npyg_read_payload; npyg__ctx_reset forgets it */
    int load_state;      /* NPYG__LOAD_* */
    npyg__source load_src;

    /* hdf5/scan.c: this context's HDF5 helper process (h5_pid 0: none
       yet), its socket and cage layers, and the path the caller set;
       npyg_ctx_free ends the helper (npyg__h5_ctx_free) */
    int h5_pid;
    int h5_sock;
    uint32_t h5_layers;
    uint32_t h5_landlock_abi;
    char *h5_helper;
};

/* Ends the context's HDF5 helper and frees its path (hdf5/scan.c, none.c). */
void npyg__h5_ctx_free(npyg_ctx *ctx);

/* Forgets the previous call's result, error and parse (ctx.c). */
void npyg__ctx_reset(npyg_ctx *ctx);

/* Records an error (first one wins within a call) and returns its code
   (errors.c). off is in ctx->parse_space; the _in forms name the space. */
int npyg__fail(npyg_ctx *ctx, int code, uint64_t off, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
int npyg__vfail(npyg_ctx *ctx, int code, uint64_t off, const char *fmt, va_list ap)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 0)))
#endif
    ;
int npyg__fail_in(npyg_ctx *ctx, int space, int code, uint64_t off, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;
int npyg__vfail_in(npyg_ctx *ctx, int space, int code, uint64_t off, const char *fmt, va_list ap)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 0)))
#endif
    ;
/* An allocation failed: NPYG_ELIMIT_ALLOC when the cap refused it ("<what>
   needs more than max_alloc_bytes"), else NPYG_ENOMEM. */
int npyg__nomem(npyg_ctx *ctx, uint64_t off);
int npyg__nomem_in(npyg_ctx *ctx, int space, uint64_t off, const char *what);

#if defined(__GNUC__)
#define NPYG__PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define NPYG__PRINTF(f, a)
#endif

/* A zeroed value of type t at offset at of the header text, from the
   arena, with extra bytes after it (a string's text). Inline: both header
   parsers make one per token. */
static inline int npyg__new_value(npyg_ctx *ctx, npyg__vtype t, size_t at, size_t extra, npyg__value **out)
{
    npyg__value *v = *out = (npyg__value *)npyg__arena_alloc(&ctx->arena, sizeof *v + extra);
    if (!v) return npyg__nomem(ctx, ctx->base + at);
    memset(v, 0, sizeof *v);
    v->type = t;
    v->offset = (uint32_t)at;
    return 0;
}

/* The header text of a whole .npy image in memory: magic, version 1.0,
   2.0 or 3.0, and a header length the image holds; NULL otherwise. For
   the tests and fuzz harnesses, which hold whole images (the readers go
   through read.c's preamble). */
static inline const char *npyg__image_header(const unsigned char *p, size_t n, int *major, size_t *len)
{
    if (n < 10 || memcmp(p, NPYG__MAGIC, NPYG__MAGIC_LEN) != 0 || p[6] < 1 || p[6] > 3 || p[7] != 0) return NULL;
    size_t ls = p[6] == 1 ? 2 : 4;
    if (n < 8 + ls) return NULL;
    size_t h = (size_t)p[8] | (size_t)p[9] << 8;
    if (ls == 4) h |= (size_t)p[10] << 16 | (size_t)p[11] << 24;
    if (h > n - 8 - ls) return NULL;
    *major = p[6];
    *len = h;
    return (const char *)p + 8 + ls;
}

/* Parses header text [text, text+len) into a value (literal.c). */
typedef struct npyg__lit_opts {
    bool allow_py2long; /* v1/v2: drop 'L' after a number, as numpy does */
    bool latin1;        /* v1/v2: each byte is one code point */
} npyg__lit_opts;
int npyg__parse_literal(npyg_ctx *ctx, const char *text, size_t len,
                        const npyg__lit_opts *opts, npyg__value **out,
                        unsigned *warnings);

/* A piece of the header text: [at, at+len). */
typedef struct npyg__span {
    size_t at, len;
} npyg__span;

/* numpy's writer spelling of a header, recognised without the general
   parser: *out is the tree that parser would build and *descr_text the
   descr's text, or *out is NULL (and 0 returned) when the text is spelled
   any other way; an error only when memory runs out (writer.c). */
int npyg__parse_writer_form(npyg_ctx *ctx, const char *text, size_t len, npyg__value **out,
                            npyg__span *descr_text);

/* Whether two value trees are the same: types, flags, offsets, numbers,
   counts and string bytes, node for node (literal.c). The writer-form
   recogniser must build the general parser's tree; its test and the
   header fuzzer check it with this. */
bool npyg__same_tree(const npyg__value *a, const npyg__value *b);

/* descr value -> dtype tree (dtype.c). */
int npyg__build_dtype(npyg_ctx *ctx, const npyg__value *descr,
                      const npyg_dtype **out, unsigned *warnings);

/* The steps of a validation, shared by the one-call validation and the
   two-step load (read.c; load.c). */
long long npyg__src_read(npyg__source *s, void *dst, size_t n);
int npyg__fd_source(npyg_ctx *ctx, int fd, npyg__source *s, uint8_t *head, size_t head_size);
int npyg__parse_from_buffer(npyg_ctx *ctx, npyg__source *s);
int npyg__parse_from_stream(npyg_ctx *ctx, npyg__source *s);
int npyg__payload_from_buffer(npyg_ctx *ctx, npyg__source *s);
int npyg__payload_from_stream(npyg_ctx *ctx, npyg__source *s);
int npyg__trailing(npyg_ctx *ctx, uint64_t extra);
int npyg__truncated(npyg_ctx *ctx, uint64_t have);
int npyg__sink(npyg_ctx *ctx, const void *p, size_t n, uint64_t at);
/* The RawArray two-step load (ra.c; load.c): the header and the checks
   that need no data, filling ctx->ra_info; then the data into dst of
   ra_info.data_bytes (decoded, for LZ4), or to the sink only (dst NULL). */
int npyg__ra_open(npyg_ctx *ctx, npyg__source *s);
int npyg__ra_read(npyg_ctx *ctx, npyg__source *s, uint8_t *dst);

/* Interprets the header text; fills ctx->info (header.c). When the text
   is in numpy's writer spelling, *descr_text is the descr's text (len > 0):
   the header is then canonical exactly when that descr is. */
int npyg__parse_header_text(npyg_ctx *ctx, const char *text, size_t len, npyg__span *descr_text);

/* Is the header text byte-for-byte what numpy's writer makes of info? Is
   a descr's text what it writes for info->dtype? Both compare as they
   format: they allocate nothing and cannot fail (writer.c). */
bool npyg__header_is_canonical(const npyg_info *info, const char *text, size_t len);
bool npyg__descr_is_canonical(const npyg_info *info, const char *text, size_t len);

/* Overflow-checked arithmetic: false when the result does not fit. */
static inline bool npyg__mul_u64(uint64_t a, uint64_t b, uint64_t *out)
{
    if (a != 0 && b > UINT64_MAX / a) return false;
    *out = a * b;
    return true;
}

static inline bool npyg__add_u64(uint64_t a, uint64_t b, uint64_t *out)
{
    if (b > UINT64_MAX - a) return false;
    *out = a + b;
    return true;
}

/* 0 when [s, s+len) is valid UTF-8 as Python's strict decoder reads it;
   else 1 and *bad_at (utf8.c). */
int npyg__utf8_check(const unsigned char *s, size_t len, size_t *bad_at);
/* cp (at most U+10FFFF) as UTF-8 into out[0..3]; the bytes written. */
size_t npyg__utf8_put(char *out, uint32_t cp);
/* The value of a hex digit, or -1 (utf8.c). */
int npyg__hexval(int c);

#endif
