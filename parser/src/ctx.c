/*
 * The context and its memory: the allocator, the arena every parse-time
 * allocation comes from, the limits and the bound they imply.
 */
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
    /* Keep one standard block for the next parse, which a typical header
       fits in; return every other block, big ones included. */
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
                         size, &ctx->xalloc_over_cap);
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

/* Per byte of header text, the arena holds at most (besides the copy of
   the header text itself, counted once below): one literal value
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
                     + h                          /* header copy (in the arena) */
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

void npyg__ctx_reset(npyg_ctx *ctx)
{
    npyg__arena_reset(&ctx->arena);
    memset(&ctx->err, 0, sizeof ctx->err);
    memset(&ctx->info, 0, sizeof ctx->info);
    ctx->have_info = false;
    ctx->base = 0;
    ctx->xalloc_over_cap = false;
}

const npyg_error *npyg_last_error(const npyg_ctx *ctx) { return ctx ? &ctx->err : NULL; }

const npyg_info *npyg_get_info(const npyg_ctx *ctx)
{
    return ctx && ctx->have_info ? &ctx->info : NULL;
}

const char *npyg_version_string(void) { return NPYG_VERSION_STRING; }

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
