/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The context: its options and limits, the .npy parse's memory bound, its
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
    if (l) npyg__limits_fill(NPYG__LG_NPY, l);
}

static bool limits_valid(const npyg_limits *l) { return npyg__limits_bad(NPYG__LG_NPY, l) < 0; }

/* Where the context keeps a group's limits. */
static void *group_of(npyg_ctx *ctx, int group)
{
    switch (group) {
    case NPYG__LG_NPY: return &ctx->limits;
    case NPYG__LG_ZIP: return &ctx->zip_limits;
    case NPYG__LG_PICKLE: return &ctx->pickle_limits;
    default: return &ctx->hdf5_limits;
    }
}

int npyg_set_limit(npyg_ctx *ctx, npyg_limit id, uint64_t value)
{
    if (!ctx) return NPYG_EINVAL;
    memset(&ctx->err, 0, sizeof ctx->err);
    const npyg_limit_desc *d = npyg_limit_info(id);
    if (!d) return npyg__fail(ctx, NPYG_EINVAL, 0, "unknown limit %d", (int)id);
    if (!npyg__limit_ok(id, value))
        return npyg__fail(ctx, NPYG_EINVAL, 0, "%s must be %llu..%llu, not %llu", d->name,
                          (unsigned long long)d->min, (unsigned long long)d->max, (unsigned long long)value);
    npyg__limit_write(group_of(ctx, npyg__limit_group(id)), id, value);
    return 0;
}

int npyg_limit_value(const npyg_ctx *ctx, npyg_limit id, uint64_t *value)
{
    if (!ctx || !value || !npyg_limit_info(id)) return NPYG_EINVAL;
    *value = npyg__limit_read(group_of((npyg_ctx *)ctx, npyg__limit_group(id)), id);
    return 0;
}

/* The form of 0.2 (npyguard_compat.h): 0 for what it cannot say. */
uint64_t npyg_get_limit(const npyg_ctx *ctx, npyg_limit id)
{
    uint64_t v = 0;
    npyg_limit_value(ctx, id, &v);
    return v;
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
                     + NPYG__ARENA_KEEP;
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
    if (!limits_valid(&limits)) return NULL; /* max_alloc_bytes holds the context at least */
    npyg_ctx *ctx = al->malloc(al->user, sizeof *ctx);
    if (!ctx) return NULL;
    memset(ctx, 0, sizeof *ctx);
    ctx->profile = profile;
    ctx->limits = limits;
    npyg__limits_fill(NPYG__LG_ZIP, &ctx->zip_limits);
    npyg__limits_fill(NPYG__LG_PICKLE, &ctx->pickle_limits);
    npyg__limits_fill(NPYG__LG_HDF5, &ctx->hdf5_limits);
    ctx->alloc = *al;
    ctx->allocated = sizeof *ctx;
    ctx->arena.alloc = *al;
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
    /* Only a failure writes the error (npyg__vfail_in), code first: a
       code of 0 is an error zeroed already. */
    if (ctx->err.code != NPYG_OK) memset(&ctx->err, 0, sizeof ctx->err);
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

long npyg_version_number(void) { return NPYG_VERSION_NUMBER; }

/* The ABI generation of a version number: the minor through 0.x, the
   major from 1.0 (the SONAME's number, parser/CMakeLists.txt). */
static long abi_generation(long v)
{
    long major = v / 1000000L;
    return major ? major * 1000L : v / 1000L;
}

int npyg_version_compatible(long built)
{
    return built >= 0 && abi_generation(built) == abi_generation(NPYG_VERSION_NUMBER) &&
           built <= NPYG_VERSION_NUMBER;
}
