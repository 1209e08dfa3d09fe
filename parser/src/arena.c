/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Memory charged against max_alloc_bytes: the arena every parse-time
 * allocation comes from, reset between parses, and the few tracked
 * allocations that live outside it. One function, npyg__charge, decides
 * whether memory may be held; everything else asks it.
 */
#include "internal.h"

#include <stddef.h>
#include <stdint.h>

struct npyg__block {
    npyg__block *next;
    size_t size; /* bytes of data after the header */
    /* data follows, aligned to 16 */
};

#define BLOCK_HDR NPYG__BLOCK_HDR
_Static_assert(BLOCK_HDR >= sizeof(npyg__block) && BLOCK_HDR % 16 == 0,
               "NPYG__BLOCK_HDR must hold a block header and keep data 16-byte aligned");

/* Every arena is a context's own (npyg_ctx.arena). */
static npyg_ctx *owner(npyg__arena *a)
{
    return (npyg_ctx *)(void *)((char *)a - offsetof(npyg_ctx, arena));
}

/* What a context keeps from earlier parses: the arena's spare blocks.
   (The read buffer is freed when a call begins, npyg__ctx_reset: it may
   be in use whenever memory is asked for, since zlib allocates its window
   from inside a read.) */
static uint64_t kept(const npyg_ctx *ctx) { return ctx->arena.kept; }

/* Big blocks kept at most: each big request looks through them. */
#define BIG_SPARES 16u

bool npyg__charge(npyg_ctx *ctx, uint64_t size)
{
    uint64_t cap = ctx->limits.max_alloc_bytes, held = ctx->allocated;
    if (size > cap || held - kept(ctx) > cap - size) return false;
    if (held > cap - size) npyg__arena_drop_spares(&ctx->arena); /* fits once they are given back */
    return true;
}

/* size bytes from the allocator once npyg__charge allows them. */
static void *charged_alloc(npyg_ctx *ctx, size_t size, bool *over_cap)
{
    *over_cap = size == 0 || !npyg__charge(ctx, size);
    if (*over_cap) return NULL;
    void *p = ctx->alloc.malloc(ctx->alloc.user, size);
    if (p) ctx->allocated += size;
    return p;
}

/* The smallest kept big block that holds size bytes, taken off the list,
   if the parse may hold that block: the bytes in use with it stay within
   max_alloc_bytes, as a new block of its size would have to. */
static npyg__block *take_big_spare(npyg__arena *a, size_t size)
{
    npyg__block **best = NULL;
    for (npyg__block **p = &a->big_spare; *p; p = &(*p)->next)
        if ((*p)->size >= size && (!best || (*p)->size < (*best)->size)) best = p;
    if (!best) return NULL;
    npyg__block *b = *best;
    const npyg_ctx *ctx = owner(a);
    uint64_t n = BLOCK_HDR + b->size, cap = ctx->limits.max_alloc_bytes;
    if (n > cap || ctx->allocated - a->kept > cap - n) return NULL;
    *best = b->next;
    a->kept -= n;
    return b;
}

void *npyg__arena_alloc_slow(npyg__arena *a, size_t size)
{
    /* Rounding a size within 7 of SIZE_MAX up to 8 would wrap to 0 and
       hand out an 8-byte block for it. */
    if (size > SIZE_MAX - 7u) { a->over_cap = true; return NULL; }
    size = (size + 7u) & ~(size_t)7u;
    if (size == 0) size = 8;
    if (size <= a->left) {
        void *p = a->cur;
        a->cur += size;
        a->left -= size;
        return p;
    }
    npyg__block *b = NULL;
    if (size <= NPYG__ARENA_BLOCK / 4 && a->spare) {
        /* No charge: the spare is already held, within the cap, and a new
           block in its place would be allowed just as well. */
        b = a->spare;
        a->spare = b->next;
        a->nspare--;
        a->kept -= BLOCK_HDR + NPYG__ARENA_BLOCK;
    } else if (size > NPYG__ARENA_BLOCK / 4 && (b = take_big_spare(a, size)) != NULL) {
        /* kept and charged as it is */
    } else {
        /* Big requests get a block of their own so that little is wasted. */
        size_t data = size > NPYG__ARENA_BLOCK / 4 ? size : NPYG__ARENA_BLOCK;
        if (data > SIZE_MAX - BLOCK_HDR) { a->over_cap = true; return NULL; }
        b = charged_alloc(owner(a), BLOCK_HDR + data, &a->over_cap);
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
    a->cur = (char *)b + BLOCK_HDR + size;
    a->left = b->size - size;
    return (char *)b + BLOCK_HDR;
}

static void free_block(npyg__arena *a, npyg__block *b)
{
    size_t n = BLOCK_HDR + b->size;
    a->alloc.free(a->alloc.user, b, n);
    *a->total -= n;
}

/* Keeps a block for the next parses while the kept bytes stay within
   NPYG__ARENA_KEEP: a standard one always, a big one (keep_big) at the
   end of a parse, for the next header like it, which a loop over the
   headers of one kind of file soon brings. */
static void recycle(npyg__arena *a, npyg__block *b, bool keep_big)
{
    uint64_t n = BLOCK_HDR + b->size;
    bool standard = b->size == NPYG__ARENA_BLOCK;
    if (n > NPYG__ARENA_KEEP - a->kept || (!standard && (!keep_big || a->nbig >= BIG_SPARES))) {
        free_block(a, b);
        return;
    }
    a->kept += n;
    if (standard) {
        b->next = a->spare;
        a->spare = b;
        a->nspare++;
    } else {
        b->next = a->big_spare;
        a->big_spare = b;
        a->nbig++;
    }
}

/* Recycles the blocks of the chain from b up to, not including, stop. */
static void recycle_chain(npyg__arena *a, npyg__block *b, const npyg__block *stop, bool keep_big)
{
    while (b != stop) {
        npyg__block *next = b->next;
        recycle(a, b, keep_big);
        b = next;
    }
}

void npyg__arena_reset(npyg__arena *a)
{
    recycle_chain(a, a->head, NULL, true);
    a->head = NULL;
    a->cur = NULL;
    a->left = 0;
    a->over_cap = false;
}

npyg__arena_mark npyg__arena_mark_now(const npyg__arena *a)
{
    return (npyg__arena_mark){a->head, a->head ? a->head->next : NULL, a->cur, a->left, a->over_cap};
}

void npyg__arena_rewind(npyg__arena *a, npyg__arena_mark m)
{
    /* Newer blocks sit in front of the marked head; big ones taken while
       it was the head sit right behind it. */
    recycle_chain(a, a->head, m.head, false);
    if (m.head) {
        recycle_chain(a, m.head->next, m.next, false);
        m.head->next = m.next;
    }
    a->head = m.head;
    a->cur = m.cur;
    a->left = m.left;
    a->over_cap = m.over_cap;
}

static void free_chain(npyg__arena *a, npyg__block *b)
{
    while (b) {
        npyg__block *next = b->next;
        free_block(a, b);
        b = next;
    }
}

void npyg__arena_drop_spares(npyg__arena *a)
{
    free_chain(a, a->spare);
    free_chain(a, a->big_spare);
    a->spare = a->big_spare = NULL;
    a->nspare = a->nbig = 0;
    a->kept = 0;
}

void npyg__arena_release(npyg__arena *a)
{
    npyg__arena_reset(a);
    npyg__arena_drop_spares(a);
}

void *npyg__xalloc(npyg_ctx *ctx, size_t size)
{
    return charged_alloc(ctx, size, &ctx->xalloc_over_cap);
}

void npyg__xfree(npyg_ctx *ctx, void *p, size_t size)
{
    if (!p) return;
    ctx->alloc.free(ctx->alloc.user, p, size);
    ctx->allocated -= size;
}
