/* Context, allocator, arena and limits. */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct npyg__block {
    npyg__block *next;
    size_t size; /* bytes of data after the header */
    /* data follows, aligned to 16 */
};

#define BLOCK_HDR ((sizeof(npyg__block) + 15u) & ~(size_t)15u)

static void *std_malloc(void *user, size_t size) { (void)user; return malloc(size); }
static void std_free(void *user, void *p, size_t size) { (void)user; (void)size; free(p); }

static const npyg_alloc std_alloc = {std_malloc, std_free, NULL};

/* Charges size bytes against the cap before asking the allocator. */
static void *charged_alloc(const npyg_alloc *al, uint64_t *total, uint64_t cap,
                           size_t size, bool *over_cap)
{
    *over_cap = false;
    if (size == 0 || size > cap || *total > cap - size) {
        *over_cap = true;
        return NULL;
    }
    void *p = al->malloc(al->user, size);
    if (p) *total += size;
    return p;
}

void *npyg__arena_alloc(npyg__arena *a, size_t size)
{
    size = (size + 7u) & ~(size_t)7u;
    if (size == 0) size = 8;
    if (a->head && a->head->size - a->used >= size) {
        void *p = (char *)a->head + BLOCK_HDR + a->used;
        a->used += size;
        return p;
    }
    npyg__block *b = NULL;
    if (size <= NPYG__ARENA_BLOCK / 4 && a->spare) {
        b = a->spare;
        a->spare = b->next;
    } else {
        /* Big requests get a block of their own so that little is wasted. */
        size_t data = size > NPYG__ARENA_BLOCK / 4 ? size : NPYG__ARENA_BLOCK;
        if (data > SIZE_MAX - BLOCK_HDR) { a->over_cap = true; return NULL; }
        b = charged_alloc(&a->alloc, a->total, a->cap, BLOCK_HDR + data, &a->over_cap);
        if (!b) return NULL;
        b->size = data;
    }
    if (a->head && size > NPYG__ARENA_BLOCK / 4) {
        /* Keep filling the current small block: put the big one behind it. */
        b->next = a->head->next;
        a->head->next = b;
        return (char *)b + BLOCK_HDR;
    }
    b->next = a->head;
    a->head = b;
    a->used = size;
    return (char *)b + BLOCK_HDR;
}

static void free_block(npyg__arena *a, npyg__block *b)
{
    size_t n = BLOCK_HDR + b->size;
    a->alloc.free(a->alloc.user, b, n);
    *a->total -= n;
}

void npyg__arena_reset(npyg__arena *a)
{
    /* Keep standard blocks for the next parse; return the big ones. The
       number kept is bounded by what this parse used, so by the limits. */
    npyg__block *b = a->head;
    while (b) {
        npyg__block *next = b->next;
        if (b->size == NPYG__ARENA_BLOCK && !a->spare) {
            b->next = a->spare;
            a->spare = b;
        } else {
            free_block(a, b);
        }
        b = next;
    }
    a->head = NULL;
    a->used = 0;
    a->over_cap = false;
}

void npyg__arena_release(npyg__arena *a)
{
    npyg__arena_reset(a);
    while (a->spare) {
        npyg__block *next = a->spare->next;
        free_block(a, a->spare);
        a->spare = next;
    }
}

void *npyg__xalloc(npyg_ctx *ctx, size_t size)
{
    return charged_alloc(&ctx->alloc, &ctx->allocated, ctx->limits.max_alloc_bytes,
                         size, &ctx->arena.over_cap);
}

void npyg__xfree(npyg_ctx *ctx, void *p, size_t size)
{
    if (!p) return;
    ctx->alloc.free(ctx->alloc.user, p, size);
    ctx->allocated -= size;
}

/* ---------------- limits ---------------- */

void npyg_limits_default(npyg_limits *l)
{
    l->max_header_bytes = NPYG_DEFAULT_MAX_HEADER_BYTES;
    l->max_dims = NPYG_DEFAULT_MAX_DIMS;
    l->max_fields = NPYG_DEFAULT_MAX_FIELDS;
    l->max_depth = NPYG_DEFAULT_MAX_DEPTH;
    l->max_alloc_bytes = NPYG_DEFAULT_MAX_ALLOC_BYTES;
    l->max_payload_bytes = NPYG_DEFAULT_MAX_PAYLOAD_BYTES;
}

static bool limits_valid(const npyg_limits *l)
{
    return l->max_header_bytes >= 1 && l->max_header_bytes <= NPYG_MAX_HEADER_BYTES_CAP &&
           l->max_dims >= 1 && l->max_fields >= 1 && l->max_depth >= 1 &&
           l->max_depth <= NPYG_MAX_DEPTH_CAP && l->max_alloc_bytes >= 1;
}

/* Per byte of header text, the arena holds at most: one literal value
   (every value needs a byte of source), decoded strings (a latin1 byte
   becomes two UTF-8 bytes, plus NUL), dtype nodes, field records and shape
   entries (each needs several source bytes), and 8-byte rounding. 256 is
   above their sum with room for block slack; the fuzz harness and the
   corpus tests hold the parser to it. */
#define ARENA_PER_HEADER_BYTE 256u

uint64_t npyg_worst_case_alloc(const npyg_limits *l)
{
    if (!l || !limits_valid(l)) return 0;
    uint64_t h = l->max_header_bytes;
    uint64_t bound = sizeof(npyg_ctx)             /* the context itself */
                     + NPYG__CHUNK                /* read buffer */
                     + h                          /* header copy */
                     + ARENA_PER_HEADER_BYTE * h  /* parse arena */
                     + 4 * (BLOCK_HDR + NPYG__ARENA_BLOCK);
    return bound < l->max_alloc_bytes ? bound : l->max_alloc_bytes;
}

/* ---------------- context ---------------- */

npyg_ctx *npyg_ctx_new(const npyg_options *opt)
{
    npyg_limits limits;
    npyg_limits_default(&limits);
    const npyg_alloc *al = &std_alloc;
    npyg_profile profile = NPYG_PROFILE_NUMPY;
    if (opt) {
        if (opt->flags != 0) return NULL;
        if (opt->profile != NPYG_PROFILE_NUMPY && opt->profile != NPYG_PROFILE_STRICT)
            return NULL;
        profile = opt->profile;
        if (opt->limits) limits = *opt->limits;
        if (opt->alloc) {
            if (!opt->alloc->malloc || !opt->alloc->free) return NULL;
            al = opt->alloc;
        }
    }
    if (!limits_valid(&limits) || limits.max_alloc_bytes < sizeof(npyg_ctx)) return NULL;
    npyg_ctx *ctx = al->malloc(al->user, sizeof *ctx);
    if (!ctx) return NULL;
    memset(ctx, 0, sizeof *ctx);
    ctx->profile = profile;
    ctx->limits = limits;
    ctx->alloc = *al;
    ctx->allocated = sizeof *ctx;
    ctx->arena.alloc = *al;
    ctx->arena.cap = limits.max_alloc_bytes;
    ctx->arena.total = &ctx->allocated;
    return ctx;
}

void npyg_ctx_free(npyg_ctx *ctx)
{
    if (!ctx) return;
    npyg__arena_release(&ctx->arena);
    npyg__xfree(ctx, ctx->readbuf, ctx->readbuf ? NPYG__CHUNK : 0);
    npyg_alloc al = ctx->alloc;
    al.free(al.user, ctx, sizeof *ctx);
}

void npyg_set_payload_sink(npyg_ctx *ctx, npyg_payload_fn fn, void *user)
{
    if (!ctx) return;
    ctx->sink = fn;
    ctx->sink_user = user;
}

const npyg_error *npyg_last_error(const npyg_ctx *ctx) { return ctx ? &ctx->err : NULL; }

const npyg_info *npyg_get_info(const npyg_ctx *ctx)
{
    return ctx && ctx->have_info ? &ctx->info : NULL;
}

const char *npyg_version_string(void) { return NPYG_VERSION_STRING; }

/* Messages quote header text, which is hostile: control characters (C0,
   DEL and the C1 range, which some terminals obey) become \xNN, so a
   message stays one printable line. */
static void escape_message(char *out, size_t size, const char *in)
{
    static const char hex[] = "0123456789abcdef";
    size_t o = 0;
    for (const unsigned char *p = (const unsigned char *)in; *p && o + 1 < size; p++) {
        unsigned c = *p;
        unsigned c1 = 0; /* a C1 control encoded in UTF-8 as C2 80..9F */
        if (c == 0xC2 && p[1] >= 0x80 && p[1] <= 0x9F) c1 = p[1];
        if (c < 0x20 || c == 0x7F || c1) {
            unsigned v = c1 ? c1 : c;
            if (o + 4 >= size) break;
            out[o++] = '\\';
            out[o++] = 'x';
            out[o++] = hex[v >> 4];
            out[o++] = hex[v & 15];
            if (c1) p++;
            continue;
        }
        out[o++] = (char)c;
    }
    out[o] = '\0';
}

int npyg__vfail(npyg_ctx *ctx, int code, uint64_t off, const char *fmt, va_list ap)
{
    if (ctx->err.code != NPYG_OK) return ctx->err.code;
    ctx->err.code = code;
    ctx->err.offset = off;
    char raw[sizeof ctx->err.message];
    vsnprintf(raw, sizeof raw, fmt, ap);
    escape_message(ctx->err.message, sizeof ctx->err.message, raw);
    return code;
}

int npyg__fail(npyg_ctx *ctx, int code, uint64_t off, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = npyg__vfail(ctx, code, off, fmt, ap);
    va_end(ap);
    return rc;
}

int npyg__nomem(npyg_ctx *ctx, uint64_t off)
{
    if (ctx->arena.over_cap)
        return npyg__fail(ctx, NPYG_ELIMIT_ALLOC, off,
                          "parsing needs more than max_alloc_bytes (%llu)",
                          (unsigned long long)ctx->limits.max_alloc_bytes);
    return npyg__fail(ctx, NPYG_ENOMEM, off, "out of memory");
}

bool npyg__mul_u64(uint64_t a, uint64_t b, uint64_t *out)
{
    if (a != 0 && b > UINT64_MAX / a) return false;
    *out = a * b;
    return true;
}

bool npyg__add_u64(uint64_t a, uint64_t b, uint64_t *out)
{
    if (b > UINT64_MAX - a) return false;
    *out = a + b;
    return true;
}
