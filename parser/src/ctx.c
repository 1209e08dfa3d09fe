/*
 * The context: its options and limits, the memory bound they imply, its
 * reset between calls and the accessors for its results.
 */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *std_malloc(void *user, size_t size) { (void)user; return malloc(size); }
static void std_free(void *user, void *p, size_t size) { (void)user; (void)size; free(p); }

static const npyg_alloc std_alloc = {std_malloc, std_free, NULL};

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
                     + 4 * (NPYG__BLOCK_HDR + NPYG__ARENA_BLOCK)
                     /* blocks kept from earlier parses, not yet reused */
                     + (uint64_t)NPYG__ARENA_SPARES * (NPYG__BLOCK_HDR + NPYG__ARENA_BLOCK);
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
    npyg__h5_ctx_free(ctx);
    npyg__pickle_forget(ctx);
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
    /* Kept, it would count against the next call's max_alloc_bytes. */
    npyg__xfree(ctx, ctx->readbuf, ctx->readbuf ? NPYG__CHUNK : 0);
    ctx->readbuf = NULL;
    memset(&ctx->err, 0, sizeof ctx->err);
    memset(&ctx->info, 0, sizeof ctx->info);
    ctx->have_info = false;
    ctx->have_ra_info = false; /* its dims were in the arena */
    ctx->have_probe_info = false;
    npyg__pickle_forget(ctx);
    ctx->base = 0;
    ctx->xalloc_over_cap = false;
    ctx->load_state = NPYG__LOAD_NONE;
}

const npyg_error *npyg_last_error(const npyg_ctx *ctx) { return ctx ? &ctx->err : NULL; }

const npyg_info *npyg_get_info(const npyg_ctx *ctx)
{
    return ctx && ctx->have_info ? &ctx->info : NULL;
}

const char *npyg_version_string(void) { return NPYG_VERSION_STRING; }
