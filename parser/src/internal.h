/* SPDX-License-Identifier: BSD-3-Clause */
/* The library's internal contracts: the context, the arena, literal
   values and the steps each source file provides. Not installed. Every
   step returns 0 or an npyg_status (recorded in ctx->err) and gives its
   results through out-parameters. */
#ifndef NPYG_INTERNAL_H
#define NPYG_INTERNAL_H

/* The library still defines (and exports) the deprecated 0.1 forms. */
#define NPYG_COMPAT
#include "npyguard.h"

#include <stdarg.h>
#include <stdbool.h>
#include <string.h>

#define NPYG__MAGIC "\x93NUMPY"
#define NPYG__MAGIC_LEN 6
#define NPYG__RA_MAGIC "rawarray" /* u64 0x7961727261776172, little-endian */
#define NPYG__CHUNK (64u * 1024u)     /* payload read/scan granularity */
#define NPYG__LITERAL_MAX_DEPTH 200   /* CPython's bracket nesting limit */
#define NPYG__ARENA_BLOCK 4096u
/* Standard blocks a context keeps between parses (768 KiB): a large
   structured header (2,300 fields, 66 KB) takes 163, and a context that
   gave them back after every such header had malloc return the memory to
   the system and fault it in again on the next one: 20 ms instead of
   0.4 ms for that header when it came between small ones. */
#define NPYG__ARENA_SPARES 192u
/* The bytes kept between parses, the blocks of their own that large
   requests took included (see arena.c): at most what the standard
   spares alone would hold. Such a header takes two of those (its fields,
   their names' table: 215 KiB); given back after every parse, malloc
   trimmed its heap and faulted the memory in again each time, 0.75 to
   1.1 ms for that header when it came between small ones against 0.18 ms
   when it came alone. */
#define NPYG__ARENA_KEEP ((uint64_t)NPYG__ARENA_SPARES * (NPYG__BLOCK_HDR + NPYG__ARENA_BLOCK))

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
    npyg__block *spare;  /* standard blocks kept from earlier parses */
    uint32_t nspare;     /* at most NPYG__ARENA_SPARES */
    npyg__block *big_spare; /* big blocks kept from earlier parses */
    uint32_t nbig;       /* how many */
    uint64_t kept;       /* bytes of both lists, headers included: at most NPYG__ARENA_KEEP */
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
void npyg__arena_reset(npyg__arena *a);   /* keeps blocks for reuse, big ones too */
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

/* ---------------- input (input.c) ---------------- */
/* What a call reads: the one place that knows buffers, descriptors and
   callbacks. npyg_set_input_* stores one on the context; each call builds
   its own from it with npyg__input_begin, and every format reads only
   through npyg__in_read (the next bytes), npyg__in_read_at (bytes at an
   offset) and npyg__in_peek (bytes already in memory). */
enum npyg__in_kind {
    NPYG__IN_NONE = 0, /* nothing set */
    NPYG__IN_BUFFER,   /* memory: random access, size known */
    NPYG__IN_FD,       /* as set: a descriptor, not yet looked at */
    NPYG__IN_FILE,     /* a regular file: pread from base, size known */
    NPYG__IN_STREAM,   /* a pipe, socket or FIFO: read(2) in order */
    NPYG__IN_READ,     /* npyg_read_fn: in order */
    NPYG__IN_PREAD     /* npyg_pread_fn: random access, size given */
};

/* A regular file's first bytes, read once when a call begins: one read
   usually holds the preamble, the header and a small payload. */
#define NPYG__HEAD 2048u

typedef struct npyg__input {
    int kind;           /* NPYG__IN_* */
    const uint8_t *buf; /* BUFFER: the bytes; NULL for every other kind */
    int fd;             /* FD, FILE, STREAM; else -1 */
    npyg_read_fn read;  /* READ */
    npyg_pread_fn pread; /* PREAD */
    void *user;
    uint64_t base;      /* FILE: the descriptor's offset when the call began */
    bool size_known;    /* BUFFER, FILE, PREAD */
    uint64_t size;      /* bytes from base */
    uint64_t pos;       /* what npyg__in_read gives next, from base */
    const uint8_t *head; /* FILE: its first head_len bytes (the context's head) */
    size_t head_len;
} npyg__input;

/* Flags of npyg__input_begin. */
#define NPYG__IN_RANDOM 1u /* the call needs read-at: streams are refused */
#define NPYG__IN_KEEP_HEAD 2u /* read a regular file's first bytes into ctx->head */

/* The call's input from the one set on the context: a descriptor is
   looked at (fstat, its kind, its position; ENOTREG for a device or a
   directory, and for a stream when NPYG__IN_RANDOM, with message notreg
   or the default), arguments refused as EINVAL. Errors go to space. */
int npyg__input_begin(npyg_ctx *ctx, npyg__input *in, unsigned flags, int space, const char *notreg);
/* A read callback as a call's input (a zip member to the .npy parser). */
npyg__input npyg__input_of_read(npyg_read_fn fn, void *user);
/* Up to n next bytes into dst, fewer only at the end; -1 on a read error.
   n bytes a buffer holds are copied here, inline (a header parse reads
   its preamble this way, n a constant); the rest is input.c's. */
long long npyg__in_read_other(npyg__input *in, void *dst, size_t n);
static inline long long npyg__in_read(npyg__input *in, void *dst, size_t n)
{
    if (in->buf && in->pos <= in->size && n <= in->size - in->pos) {
        memcpy(dst, in->buf + in->pos, n);
        in->pos += n;
        return (long long)n;
    }
    return npyg__in_read_other(in, dst, n);
}
/* What one read gives, at least one byte before the end: for a reader
   that must not wait on a stream for more than it needs. */
long long npyg__in_read_some(npyg__input *in, void *dst, size_t n);
/* Up to n bytes at off (from base) into dst, for random-access inputs. */
long long npyg__in_read_at(npyg__input *in, uint64_t off, void *dst, size_t n);
/* The n bytes at off when memory holds them already (a buffer, a file's
   head), else NULL. */
static inline const uint8_t *npyg__in_peek(const npyg__input *in, uint64_t off, size_t n)
{
    if (in->buf) return off <= in->size && n <= in->size - off ? in->buf + off : NULL;
    if (!in->head) return NULL;
    return off <= in->head_len && n <= in->head_len - off ? in->head + off : NULL;
}
/* The forms of 0.1.0 of a call that reads the context's input: call_buffer,
   call_fd and call_read set the input, then call it. One definition for
   npyg_validate, npyg_open, npyg_ra_validate and npyg_ra_open. */
#define NPYG__INPUT_FORMS(call)                                                                                    \
    int call##_buffer(npyg_ctx *ctx, const void *buf, size_t len)                                                 \
    {                                                                                                              \
        npyg_set_input_buffer(ctx, buf, len);                                                                      \
        return call(ctx);                                                                                          \
    }                                                                                                              \
    int call##_fd(npyg_ctx *ctx, int fd)                                                                           \
    {                                                                                                              \
        npyg_set_input_fd(ctx, fd);                                                                                \
        return call(ctx);                                                                                          \
    }                                                                                                              \
    int call##_read(npyg_ctx *ctx, npyg_read_fn fn, void *user)                                                   \
    {                                                                                                              \
        npyg_set_input_read(ctx, fn, user);                                                                        \
        return call(ctx);                                                                                          \
    }

/* Bytes from pos to the end, when known without reading. */
static inline bool npyg__in_left(const npyg__input *in, uint64_t *left)
{
    if (!in->size_known) return false;
    *left = in->size > in->pos ? in->size - in->pos : 0;
    return true;
}

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

    /* input.c: the input npyg_set_input_* set, and the first bytes of a
       regular file a call read (npyg__input.head points here) */
    npyg__input input;
    uint8_t head[NPYG__HEAD];

    /* the results of npyg_probe_input and npyg_pickle_scan* (pickle.c
       frees the report when the next call begins: npyg__ctx_reset) */
    bool have_probe_info;
    npyg_probe_info probe_info;
    npyg_pickle_report *pickle_report;

    /* two-step load (load.c): the input between npyg_open_* and
       npyg_read_payload; npyg__ctx_reset forgets it */
    int load_state;      /* NPYG__LOAD_* */
    npyg__input load_in;

    /* hdf5/scan.c: this context's HDF5 helper process (h5_pid 0: none
       yet), its socket and cage layers, and the path the caller set;
       npyg_ctx_free ends the helper (npyg__h5_ctx_free). h5_owed: the
       files that ended well whose ends the helper has yet to report. */
    int h5_pid;
    int h5_owner;        /* the process that started it: a fork's child does not own it */
    int h5_sock;
    uint32_t h5_owed;
    uint32_t h5_layers;
    uint32_t h5_landlock_abi;
    char *h5_helper;
    /* npyg_hdf5_set_interrupt: asked while a file's child is waited on */
    int (*h5_interrupt)(void *user);
    void *h5_interrupt_user;
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

/* The steps of a validation, shared by the one-call validation, the
   two-step load and zip members (read.c; load.c; zip.c). npyg__validate_input
   and npyg__open_input begin a call on an input built already (a zip
   member's): they reset the context first. */
/* mat.c: NPYG_EPOLYGLOT when the input starts with reader's magic and
   also holds an HDF5 superblock signature where libhdf5 searches; 0
   otherwise (a stream, another format, no signature). What npyg_detect
   refuses, refused by the reader itself. */
int npyg__refuse_polyglot(npyg_ctx *ctx, npyg__input *in, npyg_format reader);
int npyg__parse_header_in(npyg_ctx *ctx, npyg__input *in);
int npyg__payload(npyg_ctx *ctx, npyg__input *in);
int npyg__validate_input(npyg_ctx *ctx, npyg__input *in);
int npyg__open_input(npyg_ctx *ctx, npyg__input *in);
/* The rest of the input after the payload, counted (stops at the first
   byte under the strict profile): the trailing-bytes verdict. */
int npyg__rest(npyg_ctx *ctx, npyg__input *in);
/* The bytes after pos: known from the size, or read and counted (only
   the first chunk when first_only). */
int npyg__count_rest(npyg_ctx *ctx, npyg__input *in, bool first_only, uint64_t *extra);
/* The next n bytes to the sink, in chunks of at most NPYG__CHUNK, from
   memory when it holds them, else through ctx->readbuf; *done < n: the
   input ended there (the caller's verdict). Errors: read, sink, memory. */
int npyg__to_sink(npyg_ctx *ctx, npyg__input *in, uint64_t n, uint64_t *done);
/* n bytes in memory to the sink, in the chunks a stream gives it. */
int npyg__sink_all(npyg_ctx *ctx, const uint8_t *p, uint64_t n, uint64_t at);
int npyg__need_readbuf(npyg_ctx *ctx, uint64_t at);
int npyg__trailing(npyg_ctx *ctx, uint64_t extra);
int npyg__truncated(npyg_ctx *ctx, uint64_t have);
int npyg__sink(npyg_ctx *ctx, const void *p, size_t n, uint64_t at);
/* The RawArray two-step load (ra.c; load.c): the header and the checks
   that need no data, filling ctx->ra_info; then the data into dst of
   ra_info.data_bytes (decoded, for LZ4), or to the sink only (dst NULL). */
int npyg__ra_open(npyg_ctx *ctx, npyg__input *in);
int npyg__ra_read(npyg_ctx *ctx, npyg__input *in, uint8_t *dst);
/* A pickle scan of a .npy input's payload, the report to *out (pickle.c;
   zip.c scans members with it). */
int npyg__pickle_scan_npy_input(npyg_ctx *ctx, npyg__input *in, const npyg_pickle_limits *limits,
                                npyg_pickle_report **out);
/* Frees the context's pickle report, if any (ctx.c, at every reset). */
void npyg__pickle_forget(npyg_ctx *ctx);

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
